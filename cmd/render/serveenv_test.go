package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/labels"
)

// TestServeEnv: each flag of render serve takes its PROMPTSMITH_ variable
// when not given; a flag given wins; a repeatable one takes a list; a
// value that does not parse names the variable; --help lists them all.
// The flags of --repo are no different, but --label, whose variable is
// PROMPTSMITH_LABELS (labels.EnvVar), a source of labels of its own that
// --label adds to; --help lists it.
func TestServeEnv(t *testing.T) {
	for name, value := range map[string]string{
		"PROMPTSMITH_MAX_BODY":      "100",
		"PROMPTSMITH_MAX_RENDERS":   "3",
		"PROMPTSMITH_CORS_ORIGIN":   "https://a.example, https://b.example",
		"PROMPTSMITH_DRAIN_DELAY":   "7s",
		"PROMPTSMITH_TIMEOUT":       "3s",
		"PROMPTSMITH_REPO":          "/srv/prompts.git",
		"PROMPTSMITH_LABELS_FILE":   "labels.yaml",
		"PROMPTSMITH_DEFAULT_LABEL": "production",
		"PROMPTSMITH_POLL_INTERVAL": "10s",
		"PROMPTSMITH_AUDIT_INPUTS":  "true",
		labels.EnvVar:               "staging=refs/heads/main",
	} {
		t.Setenv(name, value)
	}
	serve, _, err := (&app{}).rootCommand().Find([]string{"serve"})
	if err != nil {
		t.Fatal(err)
	}
	if err := serve.ParseFlags([]string{"--max-renders", "5"}); err != nil {
		t.Fatal(err)
	}
	if err := applyServeEnv(serve); err != nil {
		t.Fatal(err)
	}
	got := func(name string) string { return serve.Flags().Lookup(name).Value.String() }
	for name, want := range map[string]string{
		"max-body": "100", "max-renders": "5", "drain-delay": "7s", "timeout": "3s",
		"cors-origin": "[https://a.example,https://b.example]", "audit-inputs": "true", "label": "[]",
		"repo": "/srv/prompts.git", "labels-file": "labels.yaml", "default-label": "production", "poll-interval": "10s",
	} {
		if got(name) != want {
			t.Errorf("--%s = %s, want %s", name, got(name), want)
		}
	}
	t.Setenv("PROMPTSMITH_MAX_QUEUE", "many")
	err = applyServeEnv(serve)
	if err == nil || !strings.Contains(err.Error(), "PROMPTSMITH_MAX_QUEUE") {
		t.Errorf("a bad value: %v", err)
	}
	help := runCLI(t, "", "serve", "--help")
	for _, f := range serveFlags(serve) {
		if !strings.Contains(help.stdout, envName(f.Name)) {
			t.Errorf("render serve --help does not list %s", envName(f.Name))
		}
	}
	if !strings.Contains(help.stdout, labels.EnvVar+"  ") || strings.Contains(help.stdout, "PROMPTSMITH_LABEL ") {
		t.Errorf("render serve --help does not list %s for --label:\n%s", labels.EnvVar, help.stdout)
	}
}

// TestRevisionLine: render version names the commit the build recorded,
// and says when the work tree had changes; nothing without one.
func TestRevisionLine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		b    engine.Build
		want string
	}{
		{engine.Build{Version: "(devel)"}, ""},
		{engine.Build{Revision: "abc", Time: "2026-01-02T03:04:05Z"}, "revision abc 2026-01-02T03:04:05Z\n"},
		{engine.Build{Revision: "abc", Modified: true}, "revision abc (modified)\n"},
	} {
		if got := revisionLine(c.b); got != c.want {
			t.Errorf("%+v: %q, want %q", c.b, got, c.want)
		}
	}
}

// TestServeEnvUnknown: a PROMPTSMITH_ variable render serve does not read
// is named at start with the one it is nearest to, and the server starts;
// with --strict-env (or PROMPTSMITH_STRICT_ENV) it does not.
func TestServeEnvUnknown(t *testing.T) {
	t.Setenv("PROMPTSMITH_ADRR", "127.0.0.1:9")
	t.Setenv("PROMPTSMITH_ZZZZZZZZZZZZZZZZZZZZ", "1")
	srv := startServe(t) // starts all the same
	srv.terminate(t)
	srv.wait(t)
	serve, _, err := (&app{}).rootCommand().Find([]string{"serve"})
	if err != nil {
		t.Fatal(err)
	}
	var warned []string
	err = checkServeEnv(serve, false, func(msg string, args ...any) { warned = append(warned, fmt.Sprint(append([]any{msg}, args...)...)) })
	if err != nil || len(warned) != 2 || !strings.Contains(warned[0], "variablePROMPTSMITH_ADRRdid_you_meanPROMPTSMITH_ADDR") ||
		!strings.Contains(warned[1], "PROMPTSMITH_ZZZZZZZZZZZZZZZZZZZZ") || strings.Contains(warned[1], "did_you_mean") {
		t.Errorf("the unknown variables logged: %q, %v", warned, err)
	}
	r := runCLI(t, "", "serve", "--strict-env", "--addr", "127.0.0.1:0")
	if r.code != 2 || !strings.Contains(r.stderr, "PROMPTSMITH_ADRR is not a variable render serve reads") || !strings.Contains(r.stderr, "did you mean PROMPTSMITH_ADDR?") ||
		!strings.Contains(r.stderr, "PROMPTSMITH_ZZZZZZZZZZZZZZZZZZZZ is not one either") {
		t.Errorf("--strict-env: exit %d\n%s", r.code, r.stderr)
	}
	t.Setenv("PROMPTSMITH_STRICT_ENV", "true")
	if r := runCLI(t, "", "serve", "--addr", "127.0.0.1:0"); r.code != 2 || !strings.Contains(r.stderr, "PROMPTSMITH_ADRR") {
		t.Errorf("PROMPTSMITH_STRICT_ENV=true: exit %d\n%s", r.code, r.stderr)
	}
}
