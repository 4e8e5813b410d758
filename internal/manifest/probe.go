package manifest

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/promptsmith/promptsmith/internal/pointer"
	"github.com/promptsmith/promptsmith/internal/problem"
)

// Probe fills one input field from the host, for render gather (package
// gather runs probes; rendering never does). It has exactly one source:
// Command, Env, File or Value.
type Probe struct {
	// Field is the JSON pointer of the input field the probe fills.
	Field string `yaml:"field" json:"field"`
	// Command runs in the gather directory; its standard output, without
	// trailing line breaks, is the value.
	Command []string `yaml:"command" json:"command,omitempty"`
	// Env names an environment variable; unset or empty leaves the field out.
	Env string `yaml:"env" json:"env,omitempty"`
	// File is a path inside the gather directory; a missing file leaves the
	// field out, without a warning.
	File string `yaml:"file" json:"file,omitempty"`
	// Value is one of os (runtime.GOOS), cwd (the gather
	// directory), date (today, YYYY-MM-DD) or now (the time, RFC 3339).
	Value string `yaml:"value" json:"value,omitempty"`
	// Timeout bounds a command, as a Go duration ("500ms", "5s"); default 2s.
	// The command's whole process group is killed when it expires.
	Timeout string `yaml:"timeout" json:"timeout,omitempty"`
	// Parse "json" decodes a command's output or a file as JSON.
	Parse string `yaml:"parse" json:"parse,omitempty"`
	// Keep names the keys kept of a JSON object, or of each object of a JSON
	// array; the others are dropped, so that a tool printing more than the
	// schema declares does not make the input invalid.
	Keep []string `yaml:"keep" json:"keep,omitempty"`
	// Optional says the command may not be installed: when it is not found
	// the field is left out without a warning.
	Optional bool `yaml:"optional" json:"optional,omitempty"`
}

// probeValues are the values a probe's value: may name.
const probeValues = "os, cwd, date, now"

// DefaultProbeTimeout bounds a command probe that names no timeout.
const DefaultProbeTimeout = 2 * time.Second

// Wait is how long the probe's command may run.
func (p Probe) Wait() time.Duration {
	if d, err := time.ParseDuration(p.Timeout); err == nil && d > 0 {
		return d
	}
	return DefaultProbeTimeout
}

// checkProbes refuses probes that could not work, naming each by its index
// and field. Whether the schema declares the field is the engine's to check.
func checkProbes(file string, probes []Probe) error {
	for i, p := range probes {
		fail := func(format string, args ...any) *problem.Error {
			return problem.Template(file, "gather[%d] (%s): %s", i, p.Field, fmt.Sprintf(format, args...))
		}
		toks := pointer.Split(p.Field)
		if !strings.HasPrefix(p.Field, "/") || len(toks) == 0 || slices.Contains(toks, "*") || slices.Contains(toks, "") {
			return fail("field must be the JSON pointer of one input field").Hint("write it as /field or /object/field")
		}
		var sources []string
		if p.Command != nil {
			sources = append(sources, "command")
		}
		for _, s := range []struct{ name, value string }{{"env", p.Env}, {"file", p.File}, {"value", p.Value}} {
			if s.value != "" {
				sources = append(sources, s.name)
			}
		}
		switch {
		case len(sources) == 0:
			return fail("no source").Hint("give one of command: [name, args...], env: NAME, file: PATH or value: os|cwd|date|now")
		case len(sources) > 1:
			return fail("%d sources (%s)", len(sources), strings.Join(sources, ", ")).Hint("a probe fills one field from exactly one source; split it")
		}
		if p.Command != nil && (len(p.Command) == 0 || p.Command[0] == "") {
			return fail("command is empty").Hint("write it as a list: command: [git, status, --short]")
		}
		if p.Value != "" && !slices.Contains(strings.Split(probeValues, ", "), p.Value) {
			return fail("value %q is not one of %s", p.Value, probeValues)
		}
		if p.File != "" && !filepath.IsLocal(p.File) {
			return fail("file %q is not a relative path inside the gather directory", p.File)
		}
		only := func(option, of string, ok bool) error {
			if ok {
				return nil
			}
			return fail("%s applies to %s only", option, of)
		}
		if p.Timeout != "" {
			if err := only("timeout", "command probes", p.Command != nil); err != nil {
				return err
			}
			d, err := time.ParseDuration(p.Timeout)
			if err != nil || d <= 0 {
				return fail("timeout %q is not a positive Go duration", p.Timeout).Hint(`write it as "500ms", "2s" or "1m"`)
			}
		}
		if p.Optional {
			if err := only("optional", "command probes", p.Command != nil); err != nil {
				return err
			}
		}
		if p.Parse != "" {
			if p.Parse != "json" {
				return fail("parse %q is not supported", p.Parse).Hint("the only parser is json; leave parse out to take the text as it is")
			}
			if err := only("parse", "command and file probes", p.Command != nil || p.File != ""); err != nil {
				return err
			}
		}
		if len(p.Keep) > 0 {
			if err := only("keep", "probes with parse: json", p.Parse == "json"); err != nil {
				return err
			}
		}
		for j := range i {
			q := probes[j].Field
			if q == p.Field || strings.HasPrefix(p.Field, q+"/") || strings.HasPrefix(q, p.Field+"/") {
				return fail("overlaps gather[%d] (%s)", j, q).Hint("each probe fills a field of its own")
			}
		}
	}
	return nil
}
