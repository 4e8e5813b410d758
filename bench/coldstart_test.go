package bench

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
	command := func(args ...string) func() error {
		return func() error {
			cmd := exec.Command(bin, args...)
			cmd.Dir, cmd.Env, cmd.Stdout = work, env, io.Discard
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("render %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
			}
			return nil
		}
	}
	help := command("--help")
	example := command("delegation", "--example", "revoked-deploy")
	b.Run("help", func(b *testing.B) {
		for b.Loop() {
			if err := help(); err != nil {
				b.Fatal(err)
			}
		}
		recordFloor(b, "coldstart/help")
	})
	b.Run("example", func(b *testing.B) {
		for b.Loop() {
			if err := example(); err != nil {
				b.Fatal(err)
			}
		}
		reportRatio(b, "coldstart/help", "x-help")
	})
	b.Run("paired", func(b *testing.B) {
		paired(b, example, base{"x-help", help})
	})
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
