package dev.larder.bench.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ParameterTest {

  private static RunOptions given(String name, String value) {
    return new RunOptions(false, Map.of(name, value), Set.of());
  }

  private static void refused(Parameter parameter, String value, String... expected) {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> parameter.check(given(parameter.name(), value)),
            value);
    for (String text : expected) {
      assertTrue(e.getMessage().contains(text), e.getMessage());
    }
  }

  @Test
  void aWholeNumberIsCheckedAgainstItsRangeAndNamesIt() {
    Parameter.WholeNumber nodes = new Parameter.WholeNumber("nodes", 1, 1000, 500, 10);
    assertEquals(500, nodes.get(RunOptions.defaults()));
    assertEquals(10, nodes.get(new RunOptions(true, Map.of(), Set.of())));
    assertEquals(1, nodes.get(given("nodes", "1")));
    assertEquals(1000, nodes.get(given("nodes", "1_000")));
    for (String bad : List.of("0", "-5", "1001", "abc", "", "1.5", "99999999999999999999")) {
      refused(nodes, bad, "-P nodes=" + bad + ": nodes must be a whole number from 1 to 1,000");
    }
  }

  @Test
  void everyElementOfAListIsChecked() {
    Parameter.WholeNumbers threads =
        new Parameter.WholeNumbers("threads", 1, 64, List.of(1L, 2L), List.of(1L));
    assertEquals(List.of(4L, 8L), threads.get(given("threads", "4, 8")));
    refused(
        threads,
        "1,x",
        "threads must be a comma-separated list of whole numbers, each from 1"
            + " to 64 ('x' is not)");
    refused(threads, "1,,2", "('' is not)");
    refused(threads, "0", "threads must be a whole number from 1 to 64");
  }

  @Test
  void decimalsAndChoicesNameWhatTheyAccept() {
    Parameter.Decimal fraction = new Parameter.Decimal("capacityFraction", 0.0001, 1, 0.5, 0.5);
    assertEquals(0.25, fraction.get(given("capacityFraction", "0.25")));
    for (String bad : List.of("0", "1.5", "NaN", "x", "-1")) {
      refused(fraction, bad, "capacityFraction must be a number from 0.0001 to 1");
    }
    Parameter.Choices variants =
        new Parameter.Choices(
            "variants",
            List.of("read-only", "read-write"),
            List.of("read-only"),
            List.of("read-only"));
    assertEquals(List.of("read-write"), variants.get(given("variants", "read-write")));
    refused(
        variants,
        "read-only,sideways",
        "variants takes a comma-separated list of read-only,"
            + " read-write ('sideways' is not one)");
  }

  @Test
  void everyScenariosDefaultsPassItsOwnChecks() {
    for (Scenario scenario : Scenarios.all()) {
      for (RunOptions options :
          List.of(RunOptions.defaults(), new RunOptions(true, Map.of(), Set.of()))) {
        for (Parameter parameter : scenario.parameters()) {
          parameter.check(options);
        }
        assertTrue(scenario.plan(options).size() > 0, scenario.name());
      }
    }
  }

  @Test
  void everyNumericParameterOfEveryScenarioRefusesANonNumber() {
    int numeric = 0;
    for (Scenario scenario : Scenarios.all()) {
      for (Parameter parameter : scenario.parameters()) {
        if (!(parameter instanceof Parameter.Checked)
            && !(parameter instanceof Parameter.Choices)) {
          refused(
              parameter,
              "abc",
              "-P " + parameter.name() + "=abc: " + parameter.name() + " must be");
          numeric++;
        }
      }
    }
    assertTrue(numeric >= 20, "numeric parameters found: " + numeric);
  }
}
