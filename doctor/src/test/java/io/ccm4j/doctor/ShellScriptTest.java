package io.ccm4j.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ShellScriptTest {

  private static List<String> ccmWords(String script) {
    return new ShellScript(script)
        .command(CcmRecognition::isCcmName).stream().map(ShellScript.Word::value).toList();
  }

  /** The CCM's command, split as a shell splits it: quotes, escapes, prefixes, other commands. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiterString = " => ",
      quoteCharacter = '~',
      value = {
        "exec /bin/aws-cloud-controller-manager --cloud-provider=aws --v=2"
            + " => /bin/aws-cloud-controller-manager,--cloud-provider=aws,--v=2",
        "mkdir -p /tmp/x && AWS_REGION=\"eu west\" FOO=bar exec /bin/aws-cloud-controller-manager"
            + " '--cluster-name=my cluster' => /bin/aws-cloud-controller-manager,--cluster-name=my cluster",
        "~cp /a /b; exec /usr/bin/manager --cloud-provider=vsphere \\\n  --v=2 2>&1~"
            + " => /usr/bin/manager,--cloud-provider=vsphere,--v=2",
        "~# start it\n/bin/ccm \"--leader-elect=false\" --x=\\$HOME >/var/log/ccm.log~"
            + " => /bin/ccm,--leader-elect=false,--x=$HOME",
        "true || exec ccm4j run --cloud-provider=sim => ccm4j,run,--cloud-provider=sim",
      })
  void theCcmsCommandIsSplitAsAShellSplitsIt(String script, String words) {
    assertThat(ccmWords(script)).containsExactly(words.split(","));
    assertThat(new ShellScript(script).notRewritable()).isEmpty();
  }

  @Test
  void aWordIsReplacedWhereItStandsInItsQuotes() {
    ShellScript script =
        new ShellScript("exec /bin/ccm \"--leader-elect=false\" --leader-elect false --v=2");
    List<ShellScript.Word> words = script.command(CcmRecognition::isCcmName);

    assertThat(script.replaced(words, 1, 2, "--leader-elect=true"))
        .contains("exec /bin/ccm \"--leader-elect=true\" --leader-elect false --v=2");
    assertThat(script.replaced(words, 2, 4, "--leader-elect=false"))
        .contains("exec /bin/ccm \"--leader-elect=false\" --leader-elect=false --v=2");
    assertThat(script.replaced(words, 4, 5, "--v=it's"))
        .contains("exec /bin/ccm \"--leader-elect=false\" --leader-elect false '--v=it'\\''s'");
  }

  /** Constructs this reading does not follow are read, but never rewritten. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiterString = " => ",
      quoteCharacter = '~',
      value = {
        "exec /bin/ccm --leader-elect=false $(cat /etc/flags) => a command substitution",
        "exec /bin/ccm --leader-elect=false `cat /etc/flags` => a command substitution",
        "if true; then exec /bin/ccm --leader-elect=false; fi => a compound command",
        "(exec /bin/ccm --leader-elect=false) => a subshell or group",
        "~cat <<EOF > /x\nEOF\nexec /bin/ccm --leader-elect=false~ => a here-document",
      })
  void aScriptWithAnotherConstructIsNotRewritten(String script, String construct) {
    ShellScript read = new ShellScript(script);
    List<ShellScript.Word> words = read.command(CcmRecognition::isCcmName);

    assertThat(words).extracting(ShellScript.Word::value).contains("--leader-elect=false");
    assertThat(read.notRewritable()).contains("it has " + construct);
    assertThat(read.replaced(words, 1, 2, "--leader-elect=true")).isEmpty();
  }
}
