package dev.larder.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.larder.server.LarderServer;
import dev.larder.testing.RequiredTool;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.RedisProtocol;

/** Pub/sub through real clients against a real server on 127.0.0.1. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PubSubClientsTest {
  private static LarderServer server;

  @BeforeAll
  static void start() throws Exception {
    server = RunningServer.start("notify-keyspace-events", "KEA");
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static Jedis jedis(RedisProtocol protocol) {
    return new Jedis(
        new HostAndPort("127.0.0.1", server.respPort()),
        DefaultJedisClientConfig.builder().protocol(protocol).timeoutMillis(30_000).build());
  }

  /** Waits (bounded) until the channel has that many subscribers. */
  private static void awaitSubscribers(String channel, long n) throws InterruptedException {
    try (Jedis j = jedis(RedisProtocol.RESP2)) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (j.pubsubNumSub(channel).get(channel) < n) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError(channel + " never had " + n + " subscribers");
        }
        Thread.sleep(5);
      }
    }
  }

  /** A JedisPubSub that records its messages and leaves after {@code expected} of them. */
  private static final class Recorder extends JedisPubSub {
    final List<String> got = new ArrayList<>();
    final int expected;

    Recorder(int expected) {
      this.expected = expected;
    }

    @Override
    public void onMessage(String channel, String message) {
      got.add(channel + " " + message);
      if (got.size() == expected) {
        unsubscribe();
        punsubscribe();
      }
    }

    @Override
    public void onPMessage(String pattern, String channel, String message) {
      onMessage(channel, message);
    }
  }

  @Test
  void jedisSubscribesInResp2AndResp3() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      for (RedisProtocol protocol :
          new RedisProtocol[] {RedisProtocol.RESP2, RedisProtocol.RESP3}) {
        String ch = "jedis-" + protocol;
        Recorder r = new Recorder(3);
        Future<?> sub =
            pool.submit(
                () -> {
                  try (Jedis j = jedis(protocol)) {
                    j.subscribe(r, ch);
                  }
                });
        awaitSubscribers(ch, 1);
        try (Jedis p = jedis(RedisProtocol.RESP2)) {
          for (int i = 0; i < 3; i++) {
            assertEquals(1, p.publish(ch, "m" + i));
          }
        }
        sub.get(30, TimeUnit.SECONDS);
        assertEquals(List.of(ch + " m0", ch + " m1", ch + " m2"), r.got);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void jedisReceivesKeyspaceNotifications() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Recorder r = new Recorder(3);
      Future<?> sub =
          pool.submit(
              () -> {
                try (Jedis j = jedis(RedisProtocol.RESP2)) {
                  j.psubscribe(r, "__keyspace@7__:note*");
                }
              });
      try (Jedis j = jedis(RedisProtocol.RESP2)) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (j.pubsubNumPat() < 1 && System.nanoTime() < deadline) {
          Thread.sleep(5);
        }
        j.select(7);
        j.set("note", "1");
        j.expire("note", 100);
        j.del("note");
      }
      sub.get(30, TimeUnit.SECONDS);
      assertEquals(
          List.of(
              "__keyspace@7__:note set", "__keyspace@7__:note expire", "__keyspace@7__:note del"),
          r.got);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void lettuceSubscribes() throws Exception {
    RedisClient client =
        RedisClient.create(RedisURI.create("redis://127.0.0.1:" + server.respPort()));
    try (StatefulRedisPubSubConnection<String, String> sub = client.connectPubSub();
        var pub = client.connect()) {
      BlockingQueue<String> got = new LinkedBlockingQueue<>();
      sub.addListener(
          new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
              got.add(channel + " " + message);
            }

            @Override
            public void message(String pattern, String channel, String message) {
              got.add(pattern + " " + channel + " " + message);
            }
          });
      sub.sync().subscribe("lettuce");
      sub.sync().psubscribe("lett*");
      assertEquals(2L, pub.sync().publish("lettuce", "hi"));
      List<String> two = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        two.add(got.poll(30, TimeUnit.SECONDS));
      }
      assertTrue(two.contains("lettuce hi") && two.contains("lett* lettuce hi"), two.toString());
      assertEquals(List.of("lettuce"), pub.sync().pubsubChannels());
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(10));
    }
  }

  @Test
  void redisCliSubscribesAndPublishes() throws Exception {
    RequiredTool.onPath("redis-cli", "redis-tools");
    Path out = Files.createTempFile("larder-redis-cli", ".out");
    Process p =
        new ProcessBuilder(
                "redis-cli", "-p", Integer.toString(server.respPort()), "subscribe", "cli")
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .start();
    try {
      awaitSubscribers("cli", 1);
      RunningServer.Run r =
          RunningServer.run(
              30,
              "redis-cli",
              "-p",
              Integer.toString(server.respPort()),
              "publish",
              "cli",
              "from redis-cli");
      assertEquals("1\n", r.out());
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!Files.readString(out).contains("from redis-cli")) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("redis-cli printed: " + Files.readString(out));
        }
        Thread.sleep(10);
      }
      assertEquals("subscribe\ncli\n1\nmessage\ncli\nfrom redis-cli\n", Files.readString(out));
    } finally {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      Files.deleteIfExists(out);
    }
  }

  /**
   * Many publishers and subscribers at once: every subscriber gets every message of its channels
   * exactly once, all subscribers of a channel see one order, and each publisher's messages keep
   * their publish order.
   */
  @Test
  void everyMessageOnceAndInOneOrderPerChannel() throws Exception {
    int channels = 4;
    int subscribers = 8;
    int publishers = 4;
    int perPublisher = 1_500;
    int perChannel = publishers * perPublisher / channels;
    ExecutorService pool = Executors.newFixedThreadPool(subscribers + publishers);
    try {
      List<Map<String, List<String>>> seen = new ArrayList<>();
      List<Future<?>> subs = new ArrayList<>();
      for (int s = 0; s < subscribers; s++) {
        Map<String, List<String>> mine = new ConcurrentHashMap<>();
        seen.add(mine);
        RedisProtocol protocol = s % 2 == 0 ? RedisProtocol.RESP2 : RedisProtocol.RESP3;
        JedisPubSub listener =
            new JedisPubSub() {
              int count;

              @Override
              public void onMessage(String channel, String message) {
                mine.computeIfAbsent(channel, k -> new ArrayList<>()).add(message);
                if (++count == perChannel * channels) {
                  unsubscribe();
                }
              }
            };
        subs.add(
            pool.submit(
                () -> {
                  try (Jedis j = jedis(protocol)) {
                    j.subscribe(listener, "c0", "c1", "c2", "c3");
                  }
                }));
      }
      for (int c = 0; c < channels; c++) {
        awaitSubscribers("c" + c, subscribers);
      }
      CountDownLatch go = new CountDownLatch(1);
      List<Future<?>> pubs = new ArrayList<>();
      for (int p = 0; p < publishers; p++) {
        int id = p;
        pubs.add(
            pool.submit(
                () -> {
                  go.await();
                  try (Jedis j = jedis(RedisProtocol.RESP2)) {
                    Pipeline pipe = j.pipelined();
                    for (int i = 0; i < perPublisher; i++) {
                      pipe.publish("c" + (i % channels), id + ":" + i);
                      if (i % 100 == 99) {
                        pipe.sync();
                      }
                    }
                    pipe.sync();
                  }
                  return null;
                }));
      }
      go.countDown();
      for (Future<?> f : pubs) {
        f.get(60, TimeUnit.SECONDS);
      }
      for (Future<?> f : subs) {
        f.get(60, TimeUnit.SECONDS);
      }
      for (int c = 0; c < channels; c++) {
        String ch = "c" + c;
        List<String> first = seen.getFirst().get(ch);
        assertEquals(perChannel, first.size());
        assertEquals(perChannel, first.stream().distinct().count(), "each message once");
        int[] last = new int[publishers];
        java.util.Arrays.fill(last, -1);
        for (String m : first) {
          int p = Integer.parseInt(m.substring(0, m.indexOf(':')));
          int i = Integer.parseInt(m.substring(m.indexOf(':') + 1));
          assertTrue(i > last[p], "publisher " + p + "'s messages in order on " + ch);
          last[p] = i;
        }
        for (Map<String, List<String>> other : seen) {
          assertEquals(first, other.get(ch), "every subscriber sees one order on " + ch);
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * A subscriber that does not read is disconnected once its unsent messages pass the output limit,
   * and the memory held for clients stays within it.
   */
  @Test
  void aSubscriberThatDoesNotReadIsDisconnectedAtTheOutputLimit() throws Exception {
    try (LarderServer small = RunningServer.start("client-output-buffer-limit", "1mb");
        Socket slow = new Socket();
        Jedis pub =
            new Jedis(
                new HostAndPort("127.0.0.1", small.respPort()),
                DefaultJedisClientConfig.builder().timeoutMillis(30_000).build())) {
      slow.setReceiveBufferSize(4096);
      slow.connect(
          new InetSocketAddress(InetAddress.getLoopbackAddress(), small.respPort()), 10_000);
      slow.getOutputStream()
          .write("*2\r\n$9\r\nSUBSCRIBE\r\n$4\r\nslow\r\n".getBytes(StandardCharsets.US_ASCII));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (pub.pubsubNumSub("slow").get("slow") < 1) {
        assertTrue(System.nanoTime() < deadline, "subscribed");
        Thread.sleep(5);
      }
      String message = "x".repeat(64 * 1024);
      int published = 0;
      while (pub.publish("slow", message) == 1) {
        published++;
        assertTrue(published < 2_000, "still connected after " + published + " messages");
      }
      String info = pub.info();
      assertTrue(info.contains("client_output_buffer_limit_disconnections:1"), info);
      long peak = field(info, "mem_clients_peak");
      assertTrue(peak <= (1 << 20) + 2 * (64 * 1024 + 256), "held at most " + peak);
      // The disconnected client leaves its channels when its connection's close runs on its own
      // event loop, a moment after the publish that found it over the limit (as Redis frees such
      // a client asynchronously); until then NUMSUB may still count it.
      long leftBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (pub.pubsubNumSub("slow").get("slow") != 0L) {
        assertTrue(System.nanoTime() < leftBy, "the disconnected subscriber left its channel");
        Thread.sleep(5);
      }
      // The socket was closed by the server: reading drains what was sent, then ends.
      slow.setSoTimeout(30_000);
      InputStream in = slow.getInputStream();
      byte[] buf = new byte[65536];
      long read = 0;
      try {
        for (int n; (n = in.read(buf)) >= 0; ) {
          read += n;
        }
      } catch (java.net.SocketException reset) {
        // a reset, as the server closed with data unread
      }
      assertTrue(published > 0 && read >= 0, published + " published, " + read + " read");
    }
  }

  private static long field(String info, String name) {
    for (String line : info.split("\r\n", -1)) {
      if (line.startsWith(name + ":")) {
        return Long.parseLong(line.substring(name.length() + 1));
      }
    }
    throw new AssertionError("INFO has no " + name);
  }
}
