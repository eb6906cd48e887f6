package io.ccm4j.lab;

import io.ccm4j.doctor.CcmWorkload;
import io.ccm4j.doctor.Doctor;
import io.ccm4j.doctor.ManifestException;
import io.ccm4j.doctor.Manifests;
import io.ccm4j.doctor.Scenarios;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/** A scenario's manifest as the doctor fixes it, for the labs' tests. */
public final class DoctorFixes {

  private DoctorFixes() {}

  /** The scenario's CCM workloads, each fixed by the doctor, as one YAML text. */
  public static String fixed(String scenario, Path directory)
      throws IOException, ManifestException {
    Path broken = directory.resolve(scenario + ".yaml");
    Files.writeString(broken, Scenarios.manifest(scenario));
    List<CcmWorkload> workloads = Doctor.workloads(Manifests.read(List.of(broken)));
    for (CcmWorkload workload : workloads) {
      Doctor.fix(workload);
    }
    return workloads.stream().map(CcmWorkload::toYaml).collect(Collectors.joining("---\n"));
  }
}
