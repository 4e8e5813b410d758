package bench

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// BenchmarkColdStart runs the render binary as a user's shell does, one
// process per op: `render --help`, which loads nothing, and `render
// delegation --example revoked-deploy`, which renders. The render reports
// its time over --help's (x-help), and "paired" runs both in the same ops;
// the design's budget is 1.5x. The binary
// is built once, from the main module as it stands, and runs in an empty
// folder (no ./templates to compare with the embedded library) with no
// PROMPTSMITH_* variable set.
func BenchmarkColdStart(b *testing.B) {
	bin := buildRender(b)
	work := b.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PROMPTSMITH_") {
			env = append(env, kv)
		}
	}
	// runIn is a run of the binary in dir with args; a failure is told as
	// what, and the binary's stderr.
	runIn := func(dir, what string, args ...string) func() error {
		return func() error {
			cmd := exec.Command(bin, args...)
			cmd.Dir, cmd.Env, cmd.Stdout = dir, env, io.Discard
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("%s: %v\n%s", what, err, stderr.String())
			}
			return nil
		}
	}
	command := func(args ...string) func() error {
		return runIn(work, "render "+strings.Join(args, " "), args...)
	}
	help := command("--help")
	example := command("delegation", "--example", "revoked-deploy")
	b.Run("help", func(b *testing.B) {
		runOps(b, help)
		recordFloor(b, "coldstart/help")
	})
	b.Run("example", func(b *testing.B) {
		runOps(b, example)
		reportRatio(b, "coldstart/help", "x-help")
	})
	b.Run("paired", func(b *testing.B) {
		paired(b, example, base{"x-help", help})
	})

	// A library working copy: templates/ and schemas/ in the folder the
	// render runs in, which it loads instead of the embedded library.
	copyDir := fixture.LibraryCopy(b)
	inCopy := runIn(copyDir, "render delegation in a working copy", "delegation", "--example", "revoked-deploy")
	b.Run("workcopy-paired", func(b *testing.B) {
		paired(b, inCopy, base{"x-help", help})
	})

	// --tokens o200k_base against the same render without it, in time
	// (paired) and in peak resident memory (rusage Maxrss of each, read
	// through cmd/peakrss, median of five runs each).
	tokens := command("delegation", "--example", "revoked-deploy", "--tokens", "o200k_base")
	b.Run("tokens-paired", func(b *testing.B) {
		paired(b, tokens, base{"x-plain", example})
		helper := buildPeakRSS(b)
		peak := func(args ...string) float64 {
			var kb []float64
			for range 5 {
				cmd := exec.Command(helper, append([]string{bin}, args...)...)
				cmd.Dir, cmd.Env = work, env
				out, err := cmd.Output()
				if err != nil {
					b.Fatalf("peakrss render %s: %v", strings.Join(args, " "), err)
				}
				n, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
				if err != nil {
					b.Fatal(err)
				}
				kb = append(kb, n)
			}
			return median(kb)
		}
		tok := peak("delegation", "--example", "revoked-deploy", "--tokens", "o200k_base")
		plain := peak("delegation", "--example", "revoked-deploy")
		b.ReportMetric(tok/1024, "tokens-maxrss-MB")
		b.ReportMetric(plain/1024, "plain-maxrss-MB")
		b.ReportMetric(tok/plain, "x-plain-rss")
	})
}

// buildPeakRSS builds cmd/peakrss into a temporary folder.
func buildPeakRSS(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "peakrss")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/peakrss").CombinedOutput(); err != nil {
		b.Fatalf("go build ./cmd/peakrss: %v\n%s", err, out)
	}
	return bin
}

// buildRender builds cmd/render of the main module (the parent folder)
// into a temporary folder and returns the binary's path.
func buildRender(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "render")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/render")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build ./cmd/render: %v\n%s", err, out)
	}
	return bin
}
