package server

// The external tests (package server_test) read gauges with the helpers of
// body_test.go.
var (
	GaugeOf    = gaugeOf
	AwaitGauge = awaitGauge
)
