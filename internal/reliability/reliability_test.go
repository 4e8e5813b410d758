package reliability_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/engine/verbatim"
	"github.com/promptsmith/promptsmith/internal/gather"
	"github.com/promptsmith/promptsmith/internal/input"
	"github.com/promptsmith/promptsmith/internal/testing/alloc"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/internal/testing/testrepo"
	"github.com/promptsmith/promptsmith/server"
	"github.com/promptsmith/promptsmith/tokens"
)

// The reliability suite: each test reproduces a way a hostile input once
// cost more than its size, hung, or left something behind, through the
// library as callers use it, and shows it fixed. The command line's half
// (-o and signals, endless stdin) is cmd/render/reliability_test.go; the
// stages' own tests go further.

// within runs f and fails the test if it has not returned when ctx ends:
// the deadline is generous, the work made so large that only a linear
// algorithm finishes in it.
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatalf("%s did not finish", what)
	}
}

func inputError(t *testing.T, err error, field, reason string) {
	t.Helper()
	var e *engine.Error
	if !errors.As(err, &e) || e.Kind != engine.KindInput || e.Field != field || !strings.Contains(e.Reason, reason) {
		t.Errorf("got %v, want an input error at %q saying %q", err, field, reason)
	}
}

// 1. A 20 KB input nested 9,990 levels took 203 MB in one render, for the
// position of its error.
func TestReliabilityDeepInputCostsItsSize(t *testing.T) {
	// Not parallel: alloc.Bytes counts what the whole process allocates.
	lib := fixture.Library(t)
	deep := []byte(`{"x": ` + strings.Repeat("[", 9990) + strings.Repeat("]", 9990) + "}")
	for _, variant := range lib.Names() {
		var err error
		used := alloc.Bytes(func() {
			_, err = lib.Render(context.Background(), variant, engine.Input{Name: "deep.json", Data: deep})
		})
		inputError(t, err, "/x"+strings.Repeat("/0", 128), "deeper than 128 levels")
		if used > 50<<20 {
			t.Errorf("%s: the render of a %d-byte input allocated %d MB", variant, len(deep), used>>20)
		}
	}
}

// 2a. --tokens on one 200,000-character word took over a minute.
func TestReliabilityLongWordCountsQuickly(t *testing.T) {
	t.Parallel()
	tc, err := tokens.New("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	// The deadline of the within below is the bound that matters here.
	lib, err := engine.Load(promptsmith.FS(), engine.WithLimits(engine.Limits{Timeout: 3 * time.Minute}))
	if err != nil {
		t.Fatal(err)
	}
	in := fixture.Delegation()
	fixture.Set(in, "parent/prompt", strings.Repeat("a", 1_000_000))
	data := mustJSON(t, in)
	within(t, 3*time.Minute, "counting the tokens of a 1,000,000-character word", func() {
		res, err := lib.Render(context.Background(), "delegation", engine.Input{Name: "word.json", Data: data}, engine.CountTokens(tc))
		if err != nil {
			t.Error(err)
		} else if res.Tokens < 1000 || res.Tokens > 1_000_000 {
			t.Errorf("%d tokens", res.Tokens)
		}
	})
}

// 2b. /v1/extract?depth=16000 on 0.9 MB took 5 s: each level read the
// rest of the text again.
func TestReliabilityDeepExtractIsLinear(t *testing.T) {
	t.Parallel()
	vb, err := fixture.Library(t).VerbatimRegion("delegation", "")
	if err != nil {
		t.Fatal(err)
	}
	markers := verbatim.Of(vb)
	const depth = 50_000 // 2.9 MB; level by level, some 70 GB of reading
	text := strings.Repeat("## Parent Prompt\n"+markers.Start+"\n", depth) + "root\n" + strings.Repeat(markers.End+"\n", depth)
	within(t, 2*time.Minute, "extracting 50,000 levels", func() {
		got, err := markers.Extract(text, depth)
		if err != nil || got != "root" {
			t.Errorf("got %q, %v", got, err)
		}
		levels, err := markers.Levels(text)
		if err != nil || len(levels) != depth {
			t.Errorf("%d levels, %v", len(levels), err)
		}
	})
}

// 3. render gather hung forever on an AGENTS.md that was a FIFO, and a
// .git/config in --dir made git status run any program.
func TestReliabilityGatherRunsNothingOfTheProject(t *testing.T) {
	t.Parallel()
	repo := testrepo.New(t)
	marker := filepath.Join(t.TempDir(), "ran")
	script := filepath.Join(t.TempDir(), "fsmonitor")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	repo.Commit("Add a.txt", "a.txt", "one\n")
	repo.Git("config", "core.fsmonitor", script)
	repo.Write("a.txt", "two\n")
	fifo := mkfifo(t, filepath.Join(repo.Dir, "AGENTS.md"))
	v := fixture.Variant(t, "swarm")
	var found []gather.Gathered
	var warns []gather.Warning
	within(t, 2*time.Minute, "gathering from a project whose AGENTS.md is a FIFO", func() {
		found, warns = gather.Run(context.Background(), v, gather.Options{Dir: repo.Dir})
	})
	if _, err := os.Stat(marker); err == nil {
		t.Error("git ran the repository's core.fsmonitor")
	}
	status := ""
	for _, g := range found {
		if g.Field == "/environment/git_status" {
			status, _ = g.Value.(string)
		}
	}
	if !strings.HasPrefix(status, " M a.txt") {
		t.Errorf("git status gave %q; warnings %v", status, warns)
	}
	if fifo {
		var said bool
		for _, w := range warns {
			said = said || w.String() == "/project_instructions: AGENTS.md: not a regular file (a named pipe)"
		}
		if !said {
			t.Errorf("no warning for the FIFO: %v", warns)
		}
	}
}

// 4. A session_seq beyond int64 failed inside a template ("incompatible
// types for comparison"), and was a 500 over HTTP.
func TestReliabilityNumbersBeyondInt64AreInputErrors(t *testing.T) {
	t.Parallel()
	lib := fixture.Library(t)
	yaml := string(fixture.Example(t, "swarm", "minimal").Data)
	if !strings.Contains(yaml, "session_seq: 1\n") {
		t.Fatalf("the example has changed:\n%s", yaml)
	}
	for _, n := range []string{"9223372036854775808", "-9223372036854775809", "1e19"} {
		bad := strings.Replace(yaml, "session_seq: 1\n", "session_seq: "+n+"\n", 1)
		_, err := lib.Render(context.Background(), "swarm", engine.Input{Name: "in.yaml", Data: []byte(bad)})
		inputError(t, err, "/session_seq", "between -9223372036854775808 and 9223372036854775807")
		if e := engine.AsError(err); e.Position == "" {
			t.Errorf("%s: no position", n)
		}
	}
	res, err := lib.Render(context.Background(), "swarm", engine.Input{Name: "in.yaml",
		Data: []byte(strings.Replace(yaml, "session_seq: 1\n", "session_seq: 9223372036854775807\n", 1))})
	if err != nil || !res.OK() {
		t.Errorf("the largest int64: %v", err)
	}
	// Over HTTP: the caller's mistake (422), not the server's (500).
	rec := httptest.NewRecorder()
	body := strings.Replace(yaml, "session_seq: 1\n", "session_seq: 9223372036854775808\n", 1)
	server.New(lib).ServeHTTP(rec, httptest.NewRequest("POST", "/v1/render/swarm", strings.NewReader(body)))
	if rec.Code != 422 || !strings.Contains(rec.Body.String(), `"field": "/session_seq"`) && !strings.Contains(rec.Body.String(), `"field":"/session_seq"`) {
		t.Errorf("HTTP %d: %s", rec.Code, rec.Body.String())
	}
}

// 6. A second YAML document was dropped silently; NUL and bytes that are
// not UTF-8 were refused in one format and passed in the other.
func TestReliabilityInputsAreOneDocumentOfText(t *testing.T) {
	t.Parallel()
	lib := fixture.Library(t)
	ex := fixture.Example(t, "swarm", "minimal")
	_, err := lib.Render(context.Background(), "swarm", engine.Input{Name: "in.yaml", Data: append(append([]byte{}, ex.Data...), "---\nagent_name: other\n"...)})
	if e := engine.AsError(err); e.Kind != engine.KindInput || !strings.Contains(e.Reason, "more than one YAML document") || !strings.HasPrefix(e.Position, "in.yaml:") {
		t.Errorf("a second document: %v", err)
	}
	// The same field, NUL (escaped) and a byte that is not UTF-8 (raw), in
	// JSON and in YAML: refused alike, naming the field.
	data := string(mustJSON(t, fixture.Set(fixture.Delegation(), "delegation/task_summary", "TASK")))
	for _, bad := range []string{`a\u0000b`, "a\xffb"} {
		_, err := lib.Render(context.Background(), "delegation", engine.Input{Name: "in.json", Data: []byte(strings.Replace(data, "TASK", bad, 1))})
		inputError(t, err, "/delegation/task_summary", "the string holds")
		if !errors.Is(err, input.ErrNotText) {
			t.Errorf("JSON %q: %v", bad, err)
		}
	}
	for _, bad := range []string{`a\0b`, `a\x00b`} {
		yamlIn := "parent: {agent_id: a, prompt_key: k, prompt: p}\ndelegation:\n  reason: r\n  expected_completion: e\n" +
			"  required_outputs: [x]\n  task_summary: \"" + bad + "\"\n"
		_, err := lib.Render(context.Background(), "delegation", engine.Input{Name: "in.yaml", Data: []byte(yamlIn)})
		inputError(t, err, "/delegation/task_summary", "the string holds a NUL")
		if e := engine.AsError(err); e.Position != "in.yaml:6:17" {
			t.Errorf("YAML %q at %q", bad, e.Position)
		}
	}
	if _, err := lib.Render(context.Background(), "delegation", engine.Input{Name: "in.yaml", Data: []byte("parent: {prompt: \"a\xffb\"}\n")}); err == nil {
		t.Error("YAML with a byte that is not UTF-8 was accepted")
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// 7. --templates served a file from outside the library folder through a
// symbolic link.
func TestReliabilityLibraryFolderIsAllThatIsRead(t *testing.T) {
	t.Parallel()
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("TOPSECRET: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, link := range []string{"templates/delegation/examples/leak.yaml", "templates/delegation/overview.md.tmpl"} {
		t.Run(filepath.Base(link), func(t *testing.T) {
			dir := fixture.LibraryCopy(t)
			os.Remove(filepath.Join(dir, link))
			if err := os.Symlink(secret, filepath.Join(dir, link)); err != nil {
				t.Skip("no symbolic links here:", err)
			}
			// A link that stays inside the folder still works.
			if err := os.Symlink("minimal.yaml", filepath.Join(dir, "templates/delegation/examples/again.yaml")); err != nil {
				t.Fatal(err)
			}
			lib, err := engine.LoadDir(dir)
			if err != nil {
				if strings.Contains(err.Error(), "TOPSECRET") {
					t.Fatalf("the error shows the file: %v", err)
				}
				return
			}
			if lerr := lib.Err(); lerr == nil || !strings.Contains(lerr.Error(), filepath.Base(link)) {
				t.Errorf("the link is not reported: %v", lerr)
			}
			v, err := lib.Variant("delegation")
			if err != nil {
				return // the variant does not load: nothing of it is served
			}
			if ex, err := v.Example("leak"); err == nil && strings.Contains(string(ex.Data), "TOPSECRET") {
				t.Fatal("an example linked out of the folder is served")
			}
			if res, err := lib.Render(context.Background(), "delegation", engine.Input{Name: "in.json", Data: mustJSON(t, fixture.Delegation())}); err == nil && strings.Contains(res.Text, "TOPSECRET") {
				t.Fatal("a template linked out of the folder is rendered")
			}
		})
	}
	dir := fixture.LibraryCopy(t)
	if err := os.Symlink("minimal.yaml", filepath.Join(dir, "templates/delegation/examples/again.yaml")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	v, _ := fixture.LoadDir(t, dir).Variant("delegation")
	if ex, err := v.Example("again"); err != nil || !strings.Contains(string(ex.Data), "research lead") {
		t.Errorf("a link inside the folder: %v", err)
	}
}
