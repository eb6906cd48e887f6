package io.ccm4j.runtime.workqueue;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.ToDoubleFunction;

/**
 * The {@code workqueue_*} gauges of the queues one registry knows by one name. client-go's queues
 * of one name share their series: the depth is the sum of theirs, and so are the counters (which
 * Micrometer already shares). A gauge registered a second time under one id is ignored, with a
 * warning, and keeps reading the first queue: so each name's gauges are registered once, over every
 * open queue of that name.
 */
final class QueueGauges {

  /** Per registry (weakly: a registry a test drops goes with its queues), per queue name. */
  private static final Map<MeterRegistry, Map<String, QueueGauges>> BY_REGISTRY =
      new WeakHashMap<>();

  private final List<WorkQueue<?>> queues = new CopyOnWriteArrayList<>();

  private QueueGauges() {}

  /** The gauges of {@code name} in {@code registry}, which now read {@code queue} too. */
  static QueueGauges join(MeterRegistry registry, String name, WorkQueue<?> queue) {
    QueueGauges gauges;
    synchronized (BY_REGISTRY) {
      Map<String, QueueGauges> byName = BY_REGISTRY.computeIfAbsent(registry, r -> new HashMap<>());
      gauges = byName.get(name);
      if (gauges == null) {
        gauges = new QueueGauges();
        gauges.register(registry, name);
        byName.put(name, gauges);
      }
    }
    gauges.queues.add(queue);
    return gauges;
  }

  /** A closed queue no longer counts. */
  void leave(WorkQueue<?> queue) {
    queues.remove(queue);
  }

  private void register(MeterRegistry registry, String name) {
    Gauge.builder("workqueue.depth", this, g -> g.sum(WorkQueue::length))
        .tag("name", name)
        .description("[BETA] Current depth of workqueue")
        .strongReference(true)
        .register(registry);
    // client-go's two gauges of work in progress, which show a worker stuck on one item.
    Gauge.builder("workqueue.unfinished.work", this, g -> g.sum(q -> q.inProgressSeconds(false)))
        .tag("name", name)
        .baseUnit("seconds")
        .description(
            "[BETA] How many seconds of work has done that is in progress and hasn't been observed"
                + " by work_duration. Large values indicate stuck threads. One can deduce the number"
                + " of stuck threads by observing the rate at which this increases.")
        .strongReference(true)
        .register(registry);
    Gauge.builder("workqueue.longest.running.processor", this, g -> g.longestRunning())
        .tag("name", name)
        .baseUnit("seconds")
        .description(
            "[BETA] How many seconds has the longest running processor for workqueue been running.")
        .strongReference(true)
        .register(registry);
  }

  private double sum(ToDoubleFunction<WorkQueue<?>> value) {
    return queues.stream().mapToDouble(value).sum();
  }

  private double longestRunning() {
    return queues.stream().mapToDouble(q -> q.inProgressSeconds(true)).max().orElse(0);
  }
}
