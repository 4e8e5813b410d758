package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

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

// TestServiceLinks: the variables Kubernetes gives a pod for a Service
// named promptsmith or promptsmith-canary in its namespace are not taken
// for typos, so --strict-env starts in such a pod; a variable of that name
// whose value no Service gives still is one.
func TestServiceLinks(t *testing.T) {
	serve, _, err := (&app{}).rootCommand().Find([]string{"serve"})
	if err != nil {
		t.Fatal(err)
	}
	links := []string{
		"PROMPTSMITH_SERVICE_HOST=10.96.0.12", "PROMPTSMITH_SERVICE_PORT=80", "PROMPTSMITH_SERVICE_PORT_HTTP=80",
		"PROMPTSMITH_PORT=tcp://10.96.0.12:80", "PROMPTSMITH_PORT_80_TCP=tcp://10.96.0.12:80", "PROMPTSMITH_PORT_80_TCP_PROTO=tcp",
		"PROMPTSMITH_PORT_80_TCP_PORT=80", "PROMPTSMITH_PORT_80_TCP_ADDR=10.96.0.12",
		"PROMPTSMITH_CANARY_SERVICE_HOST=fd00::12", "PROMPTSMITH_CANARY_PORT=udp://[fd00::12]:53",
		"PROMPTSMITH_CANARY_PORT_53_UDP_ADDR=fd00::12",
	}
	typos := []string{"PROMPTSMITH_PORT=9090", "PROMPTSMITH_SERVICE_HOST=promptsmith.example", "PROMPTSMITH_PORTS=tcp://10.0.0.1:80"}
	var got []string
	for _, u := range unknownServeEnv(serve, append(slices.Clone(links), typos...)) {
		got = append(got, u.name)
	}
	if want := []string{"PROMPTSMITH_PORT", "PROMPTSMITH_PORTS", "PROMPTSMITH_SERVICE_HOST"}; !slices.Equal(got, want) {
		t.Errorf("unknown variables %q, want %q", got, want)
	}
}

// TestKubernetesEnv: render serve as the Kubernetes kit runs it, with the
// kit's arguments and environment and the variables Kubernetes adds for
// the kit's Service (were the pod not to set enableServiceLinks: false),
// knows every flag and variable: the kit sets --strict-env.
func TestKubernetesEnv(t *testing.T) {
	var deployment struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Name string   `yaml:"name"`
						Args []string `yaml:"args"`
						Env  []struct {
							Name  string `yaml:"name"`
							Value string `yaml:"value"`
						} `yaml:"env"`
					} `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	var service struct {
		Metadata struct{ Name string } `yaml:"metadata"`
		Spec     struct {
			Ports []struct {
				Name     string `yaml:"name"`
				Port     int    `yaml:"port"`
				Protocol string `yaml:"protocol"`
			} `yaml:"ports"`
		} `yaml:"spec"`
	}
	for file, v := range map[string]any{"deployment.yaml": &deployment, "service.yaml": &service} {
		data, err := os.ReadFile(filepath.Join("..", "..", "deploy", "kubernetes", file))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(data, v); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	render := deployment.Spec.Template.Spec.Containers[0]
	var environ []string
	strict := false
	for _, e := range render.Env {
		environ = append(environ, e.Name+"="+e.Value)
		strict = strict || e.Name == "PROMPTSMITH_STRICT_ENV" && e.Value == "true"
	}
	if render.Name != "render" || !strict {
		t.Fatalf("the kit's first container is %q, strict %v; want render serve with PROMPTSMITH_STRICT_ENV=true", render.Name, strict)
	}
	svc := strings.ToUpper(strings.ReplaceAll(service.Metadata.Name, "-", "_"))
	const ip = "10.96.0.12"
	environ = append(environ, svc+"_SERVICE_HOST="+ip)
	for i, p := range service.Spec.Ports {
		proto := strings.ToLower(p.Protocol)
		n, prefix := strconv.Itoa(p.Port), fmt.Sprintf("%s_PORT_%d_%s", svc, p.Port, p.Protocol)
		if i == 0 {
			environ = append(environ, svc+"_SERVICE_PORT="+n, svc+"_PORT="+proto+"://"+ip+":"+n)
		}
		environ = append(environ, svc+"_SERVICE_PORT_"+strings.ToUpper(p.Name)+"="+n, prefix+"="+proto+"://"+ip+":"+n,
			prefix+"_PROTO="+proto, prefix+"_PORT="+n, prefix+"_ADDR="+ip)
	}
	serve, _, err := (&app{}).rootCommand().Find([]string{"serve"})
	if err != nil {
		t.Fatal(err)
	}
	if err := serve.ParseFlags(render.Args); err != nil {
		t.Errorf("the kit's arguments %q: %v", render.Args, err)
	}
	if unknown := unknownServeEnv(serve, environ); len(unknown) > 0 {
		t.Errorf("with the kit's environment %q, --strict-env refuses %v", environ, unknown)
	}
	// The values the kit writes out are values of their flags.
	for _, e := range render.Env {
		if e.Value != "" && strings.HasPrefix(e.Name, "PROMPTSMITH_") {
			t.Setenv(e.Name, e.Value)
		}
	}
	if err := applyServeEnv(serve); err != nil {
		t.Errorf("the kit's environment: %v", err)
	}
}
