package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/internal/testing/testpostgres"
	"gopkg.in/yaml.v3"
)

// auditClients is how many clients render at once against one replica.
const auditClients = 32

// auditChunk is how many renders one op of BenchmarkAuditHTTP sends to
// each server.
const auditChunk = 512

// BenchmarkAuditHTTP measures what recording every prompt in PostgreSQL
// costs one replica: two `render serve` processes of the binary built
// from the tree, serving the embedded library, one without an audit store
// and one with --audit on a PostgreSQL cluster the benchmark starts
// (fsync on), each receive auditChunk renders of the delegation example
// per op from 32 concurrent clients over loopback, in an order that
// rotates from op to op, so that both see the machine at the same
// moments. Every request's task differs, so that every prompt is new to
// the store, as in production.
//
// CPU is each server process's user+system time over its chunks
// (/proc/PID/stat), not the clients', which run in the benchmark's
// process; "db-" figures add the PostgreSQL cluster's CPU over the
// store's chunks (the postmaster, its live children and the backends it
// reaped). It reports renders per CPU-second of each side and their ratio
// (x-cpu, target ≥ 0.6; x-cpu-db with the database's CPU counted), and
// the p99 latency of each and their ratio (x-p99, target ≤ 3).
func BenchmarkAuditHTTP(b *testing.B) {
	pg := testpostgres.StartDurableCluster(b)
	target := createDatabase(b, pg, "audit_http")
	postmaster := pg.PID(b)
	bin := buildRender(b)
	none := startServe(b, bin)
	store := startServe(b, bin, "--audit", target)

	yamlBody, err := fs.ReadFile(promptsmith.FS(), "templates/delegation/examples/minimal.yaml")
	if err != nil {
		b.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(toJSON(b, yamlBody), &doc); err != nil {
		b.Fatal(err)
	}
	delegation := doc["delegation"].(map[string]any)
	delegation["task_summary"] = delegation["task_summary"].(string) + " (request @@N@@)"
	tmpl, err := json.Marshal(doc)
	if err != nil {
		b.Fatal(err)
	}
	var seq atomic.Int64
	body := func() []byte {
		return bytes.Replace(tmpl, []byte("@@N@@"), strconv.AppendInt(nil, seq.Add(1), 10), 1)
	}

	b.Run("paired", func(b *testing.B) {
		sides := []*serveProc{none, store}
		lat := make([][]time.Duration, 2)
		cpu := make([]time.Duration, 2)
		var dbCPU time.Duration
		op := 0
		for b.Loop() {
			for k := range sides {
				j := (op + k) % 2
				db0 := clusterCPU(postmaster)
				c0 := sides[j].cpu(b)
				l, err := sides[j].chunk(auditChunk, body)
				if err != nil {
					b.Fatal(err)
				}
				cpu[j] += sides[j].cpu(b) - c0
				if j == 1 {
					dbCPU += clusterCPU(postmaster) - db0
				}
				lat[j] = append(lat[j], l...)
			}
			op++
		}
		n := float64(len(lat[0]))
		rate := func(d time.Duration) float64 {
			if d <= 0 {
				return 0
			}
			return n / d.Seconds()
		}
		p99 := func(l []time.Duration) float64 {
			slices.Sort(l)
			return float64(l[int(0.99*float64(len(l)-1))]) / float64(time.Millisecond)
		}
		b.ReportMetric(rate(cpu[0]), "none-renders/cpu-s")
		b.ReportMetric(rate(cpu[1]), "pg-renders/cpu-s")
		b.ReportMetric(rate(cpu[1]+dbCPU), "pg-db-renders/cpu-s")
		if cpu[1] > 0 {
			b.ReportMetric(float64(cpu[0])/float64(cpu[1]), "x-cpu")
			b.ReportMetric(float64(cpu[0])/float64(cpu[1]+dbCPU), "x-cpu-db")
		}
		none99, pg99 := p99(lat[0]), p99(lat[1])
		b.ReportMetric(none99, "none-p99-ms")
		b.ReportMetric(pg99, "pg-p99-ms")
		if none99 > 0 {
			b.ReportMetric(pg99/none99, "x-p99")
		}
	})
}

// serveProc is a `render serve` process and a client of it.
type serveProc struct {
	cmd    *exec.Cmd
	url    string
	client *http.Client
}

// startServe starts `render serve` on a free loopback port with args, in
// an empty folder, and waits until /readyz answers 200.
func startServe(b *testing.B, bin string, args ...string) *serveProc {
	b.Helper()
	port, err := testpostgres.FreePort()
	if err != nil {
		b.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(bin, append([]string{"serve", "--addr", addr}, args...)...)
	cmd.Dir = b.TempDir()
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PROMPTSMITH_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		fixture.WaitOrKill(cmd, 20*time.Second)
	})
	p := &serveProc{cmd: cmd, url: "http://" + addr, client: &http.Client{
		Transport: &http.Transport{MaxIdleConns: auditClients, MaxIdleConnsPerHost: auditClients, MaxConnsPerHost: auditClients},
		Timeout:   30 * time.Second,
	}}
	b.Cleanup(p.client.CloseIdleConnections)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		resp, err := p.client.Get(p.url + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		if time.Now().After(deadline) {
			b.Fatalf("render serve %s did not become ready: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
	}
}

// cpu is the server process's user+system time so far.
func (p *serveProc) cpu(b *testing.B) time.Duration {
	return procCPU(p.cmd.Process.Pid, false)
}

// chunk sends n renders of body() from auditClients clients and returns
// their latencies.
func (p *serveProc) chunk(n int, body func() []byte) ([]time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), loadBudget)
	defer cancel()
	url := p.url + "/v1/render/delegation"
	lat := make([]time.Duration, n)
	err := fanOut(n, auditClients, func(i int) error {
		d, err := post(ctx, p.client, url, "application/json", body())
		lat[i] = d
		return err
	})
	if err != nil {
		return nil, err
	}
	return lat, nil
}

// auditCorpus is how many prompts BenchmarkAuditStore records at least.
const auditCorpus = 5000

// BenchmarkAuditStore records the examples corpus in PostgreSQL (a
// cluster the benchmark starts, fsync on): every example of every variant
// of the embedded library, rendered again and again with one text of its
// input made distinct (the first string of 20 bytes or more, in key
// order, gets " (copy N)"), until at least auditCorpus prompts are
// recorded, from 32 goroutines so that group commit batches them as a
// loaded replica's would. Copies that the schema or a check rejects are
// left out.
//
// "bytes" reports pg_total_relation_size of the store's tables (heap,
// indexes, TOAST; after VACUUM) over the bytes of the unique prompts
// recorded (x-prompt-bytes, target ≤ 1.0). "verify" times Store.Verify
// over the whole store (prompts/s, target ≥ 2,500). "prune" keeps the
// newest half, then verifies: it fails unless verify reports nothing.
func BenchmarkAuditStore(b *testing.B) {
	target := createDatabase(b, testpostgres.StartDurableCluster(b), "audit_corpus")
	ctx := context.Background()
	store, err := audit.Open(ctx, target)
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	lib := fixture.Library(b)
	type job struct {
		v   *engine.Variant
		res *engine.Result
	}
	var jobs []job
	unique := map[string]int{}
	var skipped int
	for copyN := 0; len(unique) < auditCorpus; copyN++ {
		before := len(unique)
		for _, name := range lib.Names() {
			v, inputs := variantExamples(b, lib, name)
			for _, in := range inputs {
				if copyN > 0 {
					in.Data = distinct(b, in.Data, copyN)
				}
				res, err := v.Render(ctx, in)
				if err != nil {
					skipped++
					continue
				}
				if _, ok := unique[audit.Hash(res.Text)]; !ok {
					unique[audit.Hash(res.Text)] = len(res.Text)
					jobs = append(jobs, job{v, res})
				}
			}
		}
		if len(unique) == before {
			b.Fatalf("copy %d of the examples adds no new prompt", copyN)
		}
	}
	var promptBytes int64
	for _, n := range unique {
		promptBytes += int64(n)
	}
	start := time.Now()
	err = fanOut(len(jobs), auditClients, func(i int) error {
		_, err := store.Record(ctx, jobs[i].v, jobs[i].res)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	recordRate := float64(len(jobs)) / time.Since(start).Seconds()

	b.Run("bytes", func(b *testing.B) {
		var total int64
		var tables map[string]int64
		for b.Loop() {
			total, tables = tableBytes(b, target)
		}
		b.ReportMetric(float64(len(jobs)), "prompts")
		b.ReportMetric(float64(promptBytes)/float64(len(jobs)), "prompt-B")
		b.ReportMetric(float64(total)/float64(len(jobs)), "table-B/prompt")
		b.ReportMetric(float64(total)/float64(promptBytes), "x-prompt-bytes")
		b.ReportMetric(recordRate, "recorded/s")
		names := make([]string, 0, len(tables))
		for name := range tables {
			names = append(names, name)
		}
		sort.Strings(names)
		var parts []string
		for _, name := range names {
			parts = append(parts, fmt.Sprintf("%s %d", name, tables[name]))
		}
		b.Logf("%d prompts (%d renders of copies rejected), %d bytes of prompts, %d bytes of tables: %s", len(jobs), skipped, promptBytes, total, strings.Join(parts, ", "))
	})
	b.Run("verify", func(b *testing.B) {
		var rows int64
		for b.Loop() {
			rep, err := store.Verify(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if len(rep.Problems) > 0 {
				b.Fatalf("verify found %d problems, the first: %s", len(rep.Problems), rep.Problems[0])
			}
			rows = rep.Prompts
		}
		b.ReportMetric(float64(rows), "prompts")
		b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "prompts/s")
	})
	b.Run("prune", func(b *testing.B) {
		var removed int64
		for b.Loop() {
			rep, err := store.Prune(ctx, audit.PruneOptions{Keep: len(jobs) / 2})
			if err != nil {
				b.Fatal(err)
			}
			removed += rep.Prompts
			after, err := store.Verify(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if len(after.Problems) > 0 {
				b.Fatalf("verify after prune found %d problems, the first: %s", len(after.Problems), after.Problems[0])
			}
		}
		b.ReportMetric(float64(removed), "pruned")
	})
}

// distinct returns data (an example's YAML or JSON) as JSON with its
// first string of 20 bytes or more, walking keys in order, suffixed with
// " (copy n)".
func distinct(b *testing.B, data []byte, n int) []byte {
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		b.Fatal(err)
	}
	done := false
	var walk func(any) any
	walk = func(x any) any {
		switch t := x.(type) {
		case map[string]any:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				t[k] = walk(t[k])
			}
		case []any:
			for i := range t {
				t[i] = walk(t[i])
			}
		case string:
			if !done && len(t) >= 20 {
				done = true
				return t + fmt.Sprintf(" (copy %d)", n)
			}
		}
		return x
	}
	v = walk(v)
	out, err := json.Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	return out
}
