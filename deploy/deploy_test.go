// Package deploy_test checks what deploy/ ships, which CI cannot run as
// it is (no container engine, no systemd as PID 1, no cluster): the
// image's Dockerfile read stage by stage, the systemd unit's exposure
// as systemd-analyze scores it, and the Kubernetes kit rendered by
// kustomize and validated against Kubernetes' schemas by kubeconform.
package deploy_test

import (
	"bufio"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// instruction is one instruction of a Dockerfile, its continuation
// lines joined.
type instruction struct {
	op, args string
}

// dockerfile reads a Dockerfile's instructions, by stage.
func dockerfile(t *testing.T, path string) [][]instruction {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stages [][]instruction
	var line strings.Builder
	sc := bufio.NewScanner(f)
	flush := func() {
		text := strings.TrimSpace(line.String())
		line.Reset()
		if text == "" {
			return
		}
		op, args, _ := strings.Cut(text, " ")
		in := instruction{strings.ToUpper(op), strings.TrimSpace(args)}
		if in.op == "FROM" {
			stages = append(stages, nil)
		}
		if len(stages) == 0 {
			t.Fatalf("%s: %s before FROM", path, in.op)
		}
		stages[len(stages)-1] = append(stages[len(stages)-1], in)
	}
	for sc.Scan() {
		text := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(text), "#") {
			continue
		}
		if strings.HasSuffix(text, "\\") {
			line.WriteString(strings.TrimSuffix(text, "\\") + " ")
			continue
		}
		line.WriteString(text)
		flush()
	}
	flush()
	return stages
}

// TestDockerfile: the image's last stage has git (render serve --repo
// runs it) from a base that has a package manager to install it, runs as
// a user other than root, allows no foreign Host, serves render serve,
// and takes the binary from the build stage, built static.
func TestDockerfile(t *testing.T) {
	stages := dockerfile(t, "Dockerfile")
	if len(stages) < 2 {
		t.Fatalf("%d stages, want a build stage and the image", len(stages))
	}
	build, final := stages[0], stages[len(stages)-1]
	static := false
	for _, in := range build {
		if in.op == "RUN" && strings.Contains(in.args, "CGO_ENABLED=0 go build") && strings.Contains(in.args, "./cmd/render") {
			static = true
		}
	}
	if !static {
		t.Error("the build stage does not build ./cmd/render with CGO_ENABLED=0")
	}
	base := strings.Fields(final[0].args)[0]
	if !strings.HasPrefix(base, "debian:") {
		t.Errorf("the image is FROM %s: want a Debian base, whose apt-get installs git", base)
	}
	var git, user, entry, copied bool
	for _, in := range final {
		switch in.op {
		case "RUN":
			if regexp.MustCompile(`apt-get install\b.*\bgit\b`).MatchString(in.args) && strings.Contains(in.args, "--no-install-recommends") {
				git = true
			}
		case "USER":
			id := strings.Split(in.args, ":")[0]
			user = id != "root" && id != "0" && id != ""
		case "ENV":
			if strings.Contains(in.args, "PROMPTSMITH_ALLOW_HOST") {
				t.Errorf("the image sets PROMPTSMITH_ALLOW_HOST (%s): it must allow no foreign Host by default", in.args)
			}
		case "ENTRYPOINT":
			entry = in.args == `["/usr/local/bin/render", "serve"]`
		case "COPY":
			if strings.Contains(in.args, "--from=build") && strings.HasSuffix(in.args, "/usr/local/bin/render") {
				copied = true
			}
		}
	}
	if !git || !user || !entry || !copied {
		t.Errorf("the image: git installed %v, unprivileged user %v, entrypoint render serve %v, binary from the build stage %v", git, user, entry, copied)
	}
}

// TestSystemdUnitExposure: systemd-analyze security scores the unit 2.0
// or lower (0 is the most locked down, 10 the least).
func TestSystemdUnitExposure(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		fixture.Missing(t, "systemd-analyze is not installed (Debian's systemd)")
	}
	out, err := exec.Command(analyze, "security", "--offline=yes", "promptsmith.service").CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze security: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`Overall exposure level for promptsmith.service: ([0-9.]+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("systemd-analyze gave no exposure level:\n%s", out)
	}
	score, _ := strconv.ParseFloat(string(m[1]), 64)
	if score > 2.0 {
		t.Errorf("exposure %.1f, want 2.0 or lower:\n%s", score, out)
	}
	t.Logf("exposure %.1f", score)
}
