package main

import (
	"fmt"
	"io"
	"net/netip"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/labels"
	"github.com/promptsmith/promptsmith/internal/phrase"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Every flag of render serve may be given as an environment variable,
// PROMPTSMITH_ and the flag's name in capitals with _ for -
// (--max-renders: PROMPTSMITH_MAX_RENDERS), for a container or a systemd
// unit configured by its environment. A flag given on the command line
// wins. A repeatable flag (--cors-origin, --allow-host) takes a
// comma-separated list.

// ownEnv are the flags whose variable the command reads already, with the
// meaning docs/operations.md gives it: PROMPTSMITH_TEMPLATES and PROMPTSMITH_AUDIT
// are their defaults, PROMPTSMITH_AUDIT_KEY names the key file, and
// PROMPTSMITH_LABELS (labels.EnvVar) is a source of labels of its own,
// which --label adds to rather than replaces.
func ownEnv(flag string) bool {
	switch flag {
	case "templates", "audit", "audit-key", "label":
		return true
	}
	return false
}

// envName is the variable of a flag.
func envName(flag string) string {
	if flag == "label" {
		return labels.EnvVar
	}
	return "PROMPTSMITH_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// serveFlags are the flags of render serve, its own and those it inherits,
// in the order help lists them.
func serveFlags(cmd *cobra.Command) []*pflag.Flag {
	var out []*pflag.Flag
	add := func(f *pflag.Flag) {
		if f.Name != "help" && !f.Hidden {
			out = append(out, f)
		}
	}
	cmd.LocalFlags().VisitAll(add)
	cmd.InheritedFlags().VisitAll(add)
	return out
}

// applyServeEnv sets each flag not given on the command line from its
// variable, when that is set.
func applyServeEnv(cmd *cobra.Command) error {
	for _, f := range serveFlags(cmd) {
		if f.Changed || ownEnv(f.Name) {
			continue
		}
		name := envName(f.Name)
		v, ok := os.LookupEnv(name)
		if !ok {
			continue
		}
		values := []string{v}
		if strings.HasSuffix(f.Value.Type(), "Array") || strings.HasSuffix(f.Value.Type(), "Slice") {
			values = strings.Split(v, ",")
		}
		for _, one := range values {
			if err := f.Value.Set(strings.TrimSpace(one)); err != nil {
				return &engine.Error{Kind: engine.KindUsage, Flag: "--" + f.Name, Path: name,
					Reason: fmt.Sprintf("%s=%q is not a usable --%s: %v", name, v, f.Name, err), Err: err}
			}
		}
	}
	return nil
}

// writeServeEnv lists the variables of render serve's flags, for its help.
func writeServeEnv(w io.Writer, cmd *cobra.Command) {
	fmt.Fprintln(w, "\nEnvironment (a flag given on the command line wins; repeatable flags take a comma-separated list):")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, f := range serveFlags(cmd) {
		fmt.Fprintf(tw, "  %s\t--%s\n", envName(f.Name), f.Name)
	}
	fmt.Fprintf(tw, "  %s\t%s\n", "OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_*", "OpenTelemetry traces over OTLP/HTTP (off when unset)")
	tw.Flush()
}

// otherEnv are the PROMPTSMITH_ variables render serve does not read but
// the project's own tests, benchmarks and CI do: set in their
// environment, they are not an operator's typo; nor is any
// PROMPTSMITH_TEST_ variable.
func otherEnv() []string {
	return []string{"PROMPTSMITH_TEST_POSTGRES", "PROMPTSMITH_TIKTOKEN_MODULES", "PROMPTSMITH_TIKTOKEN_CACHE",
		"PROMPTSMITH_TSC", "PROMPTSMITH_PYRIGHT", "PROMPTSMITH_SCREENSHOTS", "PROMPTSMITH_AUDIT_TEST_WRITER",
		"PROMPTSMITH_RENDER", "PROMPTSMITH_ROOT", "PROMPTSMITH_OUT"}
}

// unknownVar is a PROMPTSMITH_ variable set that render serve does not
// read, and the one it is nearest to, "" when none is near.
type unknownVar struct{ name, near string }

// unknownServeEnv lists, sorted, the PROMPTSMITH_ variables of environ
// (os.Environ's form) that are none of render serve's: a misspelt
// PROMPTSMITH_ADRR would otherwise be ignored without a word, and the
// server listen where the operator did not mean.
func unknownServeEnv(cmd *cobra.Command, environ []string) []unknownVar {
	var known []string
	for _, f := range serveFlags(cmd) {
		known = append(known, envName(f.Name))
	}
	known = append(known, "PROMPTSMITH_TEMPLATES", "PROMPTSMITH_AUDIT", auditKeyEnv, labels.EnvVar)
	links := serviceLinks()
	var out []unknownVar
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "PROMPTSMITH_") || slices.Contains(known, name) || slices.Contains(otherEnv(), name) ||
			strings.HasPrefix(name, "PROMPTSMITH_TEST_") || isServiceLink(links, name, value) {
			continue
		}
		out = append(out, unknownVar{name: name, near: phrase.Closest(name, known)})
	}
	slices.SortFunc(out, func(a, b unknownVar) int { return strings.Compare(a.name, b.name) })
	return out
}

// serviceLink is a form of the variables Kubernetes gives a pod for each
// Service of its namespace, unless the pod sets enableServiceLinks: false:
// a Service named promptsmith (or promptsmith-canary) gives
// PROMPTSMITH_SERVICE_HOST=10.0.0.1, PROMPTSMITH_SERVICE_PORT_HTTP=80,
// PROMPTSMITH_PORT=tcp://10.0.0.1:80, PROMPTSMITH_PORT_80_TCP_PROTO=tcp and
// the like. They are not an operator's typo; PROMPTSMITH_PORT=9090, whose
// value no Service gives, is.
type serviceLink struct {
	name  *regexp.Regexp
	value func(string) bool
}

func serviceLinks() []serviceLink {
	const service, port = `^PROMPTSMITH(_[A-Z0-9_]+)?`, `_PORT_[0-9]+_(TCP|UDP|SCTP)`
	protocol := func(v string) bool { return v == "tcp" || v == "udp" || v == "sctp" }
	address := func(v string) bool { _, err := netip.ParseAddr(v); return err == nil }
	number := func(v string) bool { n, err := strconv.ParseUint(v, 10, 16); return err == nil && n > 0 }
	url := func(v string) bool {
		proto, addr, _ := strings.Cut(v, "://")
		ap, err := netip.ParseAddrPort(addr)
		return protocol(proto) && err == nil && ap.Port() > 0
	}
	return []serviceLink{
		{regexp.MustCompile(service + `_SERVICE_HOST$`), address},
		{regexp.MustCompile(service + `_SERVICE_PORT(_[A-Z0-9_]+)?$`), number},
		{regexp.MustCompile(service + `_PORT$`), url},
		{regexp.MustCompile(service + port + `$`), url},
		{regexp.MustCompile(service + port + `_ADDR$`), address},
		{regexp.MustCompile(service + port + `_PORT$`), number},
		{regexp.MustCompile(service + port + `_PROTO$`), protocol},
	}
}

// isServiceLink reports whether a variable is one Kubernetes set for a
// Service, by its name and its value alike.
func isServiceLink(links []serviceLink, name, value string) bool {
	return slices.ContainsFunc(links, func(l serviceLink) bool { return l.name.MatchString(name) && l.value(value) })
}

// checkServeEnv names each unknown PROMPTSMITH_ variable in the log, with
// the variable it is nearest to; with --strict-env it refuses to start.
func checkServeEnv(cmd *cobra.Command, strict bool, warn func(msg string, args ...any)) error {
	unknown := unknownServeEnv(cmd, os.Environ())
	for _, u := range unknown {
		args := []any{"variable", u.name}
		if u.near != "" {
			args = append(args, "did_you_mean", u.near)
		}
		warn("unknown environment variable: render serve does not read it", args...)
	}
	if !strict || len(unknown) == 0 {
		return nil
	}
	e := &engine.Error{Kind: engine.KindUsage, Flag: "--strict-env", Path: unknown[0].name,
		Reason: fmt.Sprintf("%s is not a variable render serve reads", unknown[0].name)}
	if unknown[0].near != "" {
		e.Hint("did you mean %s?", unknown[0].near)
	}
	for _, u := range unknown[1:] {
		e.Hint("%s is not one either", u.name)
	}
	return e.Hint("render serve --help lists the variables; without --strict-env an unknown variable is logged and ignored")
}
