package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/labels"
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
