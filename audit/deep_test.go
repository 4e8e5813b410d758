package audit_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/testing/testpostgres"
)

// writerEnv, when set to a database path, makes the test binary a writer
// process: it records writerRecords prompts there and exits.
const (
	writerEnv     = "PROMPTSMITH_AUDIT_TEST_WRITER"
	writerRecords = 20
)

func TestMain(m *testing.M) {
	if path := os.Getenv(writerEnv); path != "" {
		n, err := writeSome(path, fmt.Sprint("process ", os.Getpid()))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(n)
		os.Exit(0)
	}
	os.Exit(testpostgres.Main(m))
}

// writeSome records writerRecords small delegations into the store at
// target and returns how many bytes of prompts it recorded.
func writeSome(target, who string) (int, error) {
	store, err := audit.Open(context.Background(), target)
	if err != nil {
		return 0, err
	}
	defer store.Close()
	l, err := promptsmith.Library()
	if err != nil {
		return 0, err
	}
	v, err := l.Variant("delegation")
	if err != nil {
		return 0, err
	}
	total := 0
	for i := range writerRecords {
		res, err := renderDelegation("# Root of "+who+"\n", fmt.Sprint(who, " task ", i))
		if err != nil {
			return 0, err
		}
		if _, err := store.Record(context.Background(), v, res); err != nil {
			return 0, fmt.Errorf("%s: record %d: %w", who, i, err)
		}
		total += len(res.Text)
	}
	return total, nil
}

// writers starts goroutines and processes that record into the SQLite file
// at path while the test does its own work; wait returns the bytes of the
// prompts they recorded, and their errors.
func writers(t *testing.T, path string, goroutines, processes int) (wait func() (int, error)) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, goroutines+processes)
	written := make([]int, goroutines+processes)
	for i := range goroutines {
		wg.Go(func() { written[i], errs[i] = writeSome(path, fmt.Sprint("goroutine ", i)) })
	}
	for i := range processes {
		var out, stderr bytes.Buffer
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), writerEnv+"="+path)
		cmd.Stdout, cmd.Stderr = &out, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			if err := cmd.Wait(); err != nil {
				errs[goroutines+i] = fmt.Errorf("writer process: %v\n%s", err, stderr.Bytes())
				return
			}
			written[goroutines+i], errs[goroutines+i] = strconv.Atoi(strings.TrimSpace(out.String()))
		})
	}
	return func() (int, error) {
		wg.Wait()
		total := 0
		for _, n := range written {
			total += n
		}
		return total, errors.Join(errs...)
	}
}

// dbSize is the size on disk of a SQLite database and its WAL.
func dbSize(t *testing.T, path string) int64 {
	var n int64
	for _, f := range []string{path, path + "-wal"} {
		if info, err := os.Stat(f); err == nil {
			n += info.Size()
		}
	}
	return n
}

// TestDeepChain records a delegation chain nested deepLevels levels deep,
// built by rendering each level with the previous one as its parent, while
// goroutines and processes record into the same SQLite file. Every writer
// succeeds, every level reads back byte for byte, and the file is a small
// multiple of the text recorded (the last prompt and the other writers'):
// each level is stored as its own bytes, not with the whole text it still
// contains, which would be deepLevels/2 times the last prompt.
func TestDeepChain(t *testing.T) {
	t.Parallel()
	prompts, last := chain(t, "# Root\n", deepLevels, "deep")
	path := filepath.Join(t.TempDir(), "audit.db")
	store := open(t, path)
	wait := writers(t, path, 3, 2)
	hash := recordDelegation(t, store, last)
	others, err := wait()
	if err != nil {
		t.Fatal(err)
	}
	links, err := store.Links(context.Background(), hash)
	if err != nil {
		t.Fatal(err)
	}
	if len(links) != deepLevels+1 {
		t.Fatalf("%d links, want %d", len(links), deepLevels+1)
	}
	for i := 0; i < len(links); i += max(1, deepLevels/10) {
		e, err := store.Get(context.Background(), links[i].Hash)
		if err != nil {
			t.Fatal(err)
		}
		if e.Text != prompts[deepLevels-i] {
			t.Fatalf("level %d differs from the prompt rendered at that level", i)
		}
	}
	store.Close()
	size, text := dbSize(t, path), int64(len(last.Text)+others)
	t.Logf("%d levels, last prompt %d bytes, the other writers' %d bytes; database %d bytes (%.2f× the text recorded)",
		deepLevels, len(last.Text), others, size, float64(size)/float64(text))
	if size > 5*text/2 {
		t.Errorf("the database is %d bytes, over 2.5 × the %d bytes of text recorded", size, text)
	}
}

// TestTenThousandLevels records a prompt whose parent nests 10,000 levels
// of markers (markerLevels; fewer under the race detector): the most levels
// a parent can hold per byte. The store keeps each level once, reads the
// whole prompt back, and lists its 10,002 links.
func TestTenThousandLevels(t *testing.T) {
	t.Parallel()
	const depth = markerLevels
	res := delegate(t, nestedMarkers(depth), "t")
	eachBackend(t, func(t *testing.T, b backend) {
		store := open(t, b.target)
		hash := recordDelegation(t, store, res)
		links, err := store.Links(context.Background(), hash)
		if err != nil || len(links) != depth+2 {
			t.Fatalf("%d links, %v", len(links), err)
		}
		// Each link's text holds the one it embeds: the chain's texts
		// grow with the square of its depth, and Chain refuses more than
		// MaxChainBytes of them before it builds any.
		var total int64
		for _, l := range links {
			total += l.Size
		}
		chain, err := store.Chain(context.Background(), hash)
		if e := engine.AsError(err); total > audit.MaxChainBytes && (err == nil || e.Kind != engine.KindUsage || !strings.Contains(e.Reason, "over the")) ||
			total <= audit.MaxChainBytes && (err != nil || len(chain) != len(links)) {
			t.Errorf("the chain of %d links, %d bytes of texts: %d links, %v", len(links), total, len(chain), err)
		}
		if e, err := store.Get(context.Background(), hash); err != nil || e.Text != res.Text {
			t.Fatalf("read back: %v", err)
		}
		if b.name != "sqlite" {
			return
		}
		store.Close()
		// Each level's own bytes are its two marker lines (56 bytes); the
		// rest is its address, twice, and the address it embeds.
		size, final := dbSize(t, b.target), int64(len(res.Text))
		t.Logf("%d levels, prompt %d bytes, database %d bytes (%.2f×)", depth, final, size, float64(size)/float64(final))
		if size > 12*final {
			t.Errorf("the database is %d bytes, over 12 × the %d-byte prompt", size, final)
		}
	})
}
