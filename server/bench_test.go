package server_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/server"
)

// BenchmarkRenderUnderLoad sends b.N renders from 64 concurrent clients
// over loopback, with renders bounded to the cores (the default) and
// unbounded, and reports the latency quantiles clients see: bounding keeps
// the tail short because each render runs without sharing its core.
func BenchmarkRenderUnderLoad(b *testing.B) {
	lib := fixture.Library(b)
	body, err := os.ReadFile("../templates/delegation/examples/minimal.yaml")
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name    string
		renders int
	}{{"bounded", 0}, {"unbounded", 1 << 12}} {
		b.Run(bc.name, func(b *testing.B) {
			srv := server.New(lib)
			if bc.renders > 0 {
				srv.MaxRenders = bc.renders
			}
			srv.MaxQueue = 1 << 12
			ts := httptest.NewServer(srv)
			defer ts.Close()
			const clients = 64
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
			defer client.CloseIdleConnections()
			latencies := make([]time.Duration, b.N)
			var next sync.Mutex
			n := 0
			b.ResetTimer()
			var wg sync.WaitGroup
			for range clients {
				wg.Go(func() {
					for {
						next.Lock()
						i := n
						n++
						next.Unlock()
						if i >= b.N {
							return
						}
						start := time.Now()
						resp, err := client.Post(ts.URL+"/v1/render/delegation", "application/yaml", strings.NewReader(string(body)))
						if err != nil {
							b.Error(err)
							return
						}
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						if resp.StatusCode != 200 {
							b.Errorf("status %d", resp.StatusCode)
						}
						latencies[i] = time.Since(start)
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			slices.Sort(latencies)
			q := func(p float64) float64 {
				return float64(latencies[int(p*float64(len(latencies)-1))]) / float64(time.Millisecond)
			}
			b.ReportMetric(q(0.5), "p50-ms")
			b.ReportMetric(q(0.99), "p99-ms")
		})
	}
}
