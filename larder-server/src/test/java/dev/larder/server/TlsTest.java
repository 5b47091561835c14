package dev.larder.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Both listeners speak TLS with a PEM certificate and key from the config: a self-signed
 * certificate made by the JDK's keytool, and a client that trusts exactly it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TlsTest {
  private static final char[] PASSWORD = "changeit".toCharArray();

  @Test
  void respAndMemcachedOverTls(@TempDir Path dir) throws Exception {
    Path store = dir.resolve("server.p12");
    Process keytool =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair",
                "-alias",
                "larder",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=localhost",
                "-validity",
                "2",
                "-ext",
                "san=ip:127.0.0.1",
                "-keystore",
                store.toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                new String(PASSWORD))
            .redirectErrorStream(true)
            .start();
    keytool.getInputStream().transferTo(OutputStream.nullOutputStream());
    assertEquals(0, keytool.waitFor());
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      ks.load(in, PASSWORD);
    }
    Certificate cert = ks.getCertificate("larder");
    Key key = ks.getKey("larder", PASSWORD);
    Path certPem = dir.resolve("cert.pem");
    Path keyPem = dir.resolve("key.pem");
    Files.writeString(certPem, pem("CERTIFICATE", cert.getEncoded()));
    Files.writeString(keyPem, pem("PRIVATE KEY", key.getEncoded()));

    try (LarderServer server =
        LarderServer.start(
            ServerConfig.of(
                Map.of(
                    "resp-port",
                    "0",
                    "memcache-port",
                    "0",
                    "tls-cert-file",
                    certPem.toString(),
                    "tls-key-file",
                    keyPem.toString())))) {
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      trust.setCertificateEntry("larder", cert);
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(null, tmf.getTrustManagers(), null);
      assertEquals("+PONG\r\n", exchange(ctx, server.respPort(), "PING\r\n", 7));
      assertEquals("VERSION 1.6.0\r\n", exchange(ctx, server.memcachePort(), "version\r\n", 15));
    }
  }

  private static String exchange(SSLContext ctx, int port, String request, int replyBytes)
      throws Exception {
    try (SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", port)) {
      s.setSoTimeout(30_000);
      s.startHandshake();
      s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      return new String(s.getInputStream().readNBytes(replyBytes), StandardCharsets.US_ASCII);
    }
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }
}
