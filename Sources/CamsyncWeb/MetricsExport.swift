import Metrics
public import Prometheus

/// The process's swift-metrics backend: swift-prometheus, bootstrapped once per process. Every
/// `Counter`/`Gauge`/`Recorder`/`Timer` the daemon creates afterwards lands in `registry`, which
/// `/metrics` renders in the Prometheus text format (docs/OPERATIONS.md "Metrics").
public enum MetricsExport {
    /// Bootstraps swift-metrics with swift-prometheus and returns the registry to serve.
    /// Call before the daemon creates its metrics, at most once per process.
    public static func bootstrap() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets["camsync_camera_wait_seconds"] = [
            .zero, .milliseconds(1), .milliseconds(10), .milliseconds(100), .milliseconds(500),
            .seconds(1), .seconds(5), .seconds(30), .seconds(120),
        ]
        factory.durationHistogramBuckets["camsync_log_write_seconds"] = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .seconds(1),
        ]
        factory.durationHistogramBuckets["camsync_turn_seconds"] = [
            .microseconds(100), .milliseconds(1), .milliseconds(5), .milliseconds(20), .milliseconds(50),
            .milliseconds(100), .milliseconds(200), .milliseconds(400), .seconds(1),
        ]
        factory.valueHistogramBuckets["camsync_group_commit_entries"] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
        factory.valueHistogramBuckets["camsync_snapshot_encoded_bytes"] = [1_024, 16_384, 262_144, 1_048_576, 4_194_304, 16_777_216]
        MetricsSystem.bootstrap(factory)
        return registry
    }
}
