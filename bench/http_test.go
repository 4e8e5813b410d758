package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/server"
)

// A load run sends b.N requests, which -benchtime bounds, and never more
// than maxRequests; loadBudget bounds its time whatever b.N is: past it the
// clients stop and the benchmark fails, so that a stuck server cannot hold
// a CI run.
const (
	maxRequests = 1 << 20
	loadBudget  = 2 * time.Minute
)

// BenchmarkHTTP sends b.N renders of the delegation example over loopback
// from 8 and from 64 concurrent clients, each with a kept-alive connection,
// to server.New(lib) served by server.Serve with the default HTTP limits,
// as `render serve` does. It reports requests/s and the latency quantiles
// the clients see. The design's budget: at 8 clients at least 2x 1,404
// requests/s with p99 at most 20 ms; at 64 clients p99 at most 60 ms.
func BenchmarkHTTP(b *testing.B) {
	lib := fixture.Library(b)
	yamlBody, err := fs.ReadFile(promptsmith.FS(), "templates/delegation/examples/minimal.yaml")
	if err != nil {
		b.Fatal(err)
	}
	bodies := map[string][]byte{"json": toJSON(b, yamlBody), "yaml": yamlBody}
	types := map[string]string{"json": "application/json", "yaml": "application/yaml"}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- server.Serve(ctx, ln, server.New(lib), server.DefaultHTTPConfig()) }()
	defer func() {
		stop()
		if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
			b.Error(err)
		}
	}()
	url := "http://" + ln.Addr().String() + "/v1/render/delegation"

	for _, clients := range []int{8, 64} {
		for _, format := range []string{"json", "yaml"} {
			b.Run(fmt.Sprintf("c=%d/%s", clients, format), func(b *testing.B) {
				load(b, url, types[format], bodies[format], clients)
			})
		}
	}
}

// load sends b.N POSTs of body from clients goroutines and reports
// requests/s, p50 and p99.
func load(b *testing.B, url, contentType string, body []byte, clients int) {
	if b.N > maxRequests {
		b.Fatalf("%d requests asked, over the bound of %d: use a smaller -benchtime", b.N, maxRequests)
	}
	client := &http.Client{
		Transport: &http.Transport{MaxIdleConns: clients, MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients},
		Timeout:   30 * time.Second,
	}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), loadBudget)
	defer cancel()
	// One request per client first, outside the measure, so that every
	// connection is open before the clock starts.
	warm := make(chan error, clients)
	for range clients {
		go func() { _, err := post(ctx, client, url, contentType, body); warm <- err }()
	}
	for range clients {
		if err := <-warm; err != nil {
			b.Fatal(err)
		}
	}

	latencies := make([]time.Duration, b.N)
	b.ResetTimer()
	start := time.Now()
	err := fanOut(b.N, clients, func(i int) error {
		d, err := post(ctx, client, url, contentType, body)
		latencies[i] = d
		return err
	})
	elapsed := time.Since(start)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	slices.Sort(latencies)
	q := func(p float64) float64 {
		return float64(latencies[int(p*float64(len(latencies)-1))]) / float64(time.Millisecond)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	b.ReportMetric(q(0.5), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
}

// fanOut calls do(i) for each i from 0 to n-1 from workers goroutines,
// each taking the next i as it is free, as a pool of clients takes
// requests; after the first error no new call starts, and that error is
// returned.
func fanOut(n, workers int, do func(i int) error) error {
	var next atomic.Int64
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || failed.Load() != nil {
					return
				}
				if err := do(i); err != nil {
					failed.CompareAndSwap(nil, &err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		return *err
	}
	return nil
}

// post sends one render and returns how long its answer took to arrive
// whole; any status but 200 is an error.
func post(ctx context.Context, client *http.Client, url, contentType string, body []byte) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", contentType)
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("status %d: %.200s", resp.StatusCode, answer)
	}
	return time.Since(start), nil
}
