package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/promptsmith/promptsmith/internal/labels"
	"github.com/promptsmith/promptsmith/server"
	"github.com/spf13/pflag"
)

// render serve --repo PATH serves a git repository's library at named
// labels (package labels): the flags that say which, and the wiring of
// the registry into the server, its poller and SIGHUP.

// repoOptions are the flags of render serve --repo.
type repoOptions struct {
	repo, labelsFile, defaultLabel string
	labels                         []string
	pollInterval                   time.Duration
}

// defaultPollInterval is how often the refs are read again: a moved tag
// is served within it.
const defaultPollInterval = 30 * time.Second

func (o *repoOptions) register(f *pflag.FlagSet) {
	f.StringVar(&o.repo, "repo", "", "serve the library of this git repository (bare or with a work tree) at the --label refs, read from each commit's tree, never the work tree")
	f.StringArrayVar(&o.labels, "label", nil, "with --repo: a label NAME=REF a request picks by ?label= or X-Promptsmith-Label (production=refs/tags/prod); repeatable")
	f.StringVar(&o.labelsFile, "labels-file", "", "with --repo: a YAML file of labels (labels: {NAME: REF}) and default: NAME; --label and "+labels.EnvVar+" override its labels")
	f.StringVar(&o.defaultLabel, "default-label", "", "with --repo: the label of a request that names none (the only label, when there is one)")
	f.DurationVar(&o.pollInterval, "poll-interval", defaultPollInterval, "with --repo: how often the refs are read again (0: only on SIGHUP and POST /v1/reload)")
}

// repoFlags are the flags that mean something only with --repo.
func repoFlags() []string { return []string{"label", "labels-file", "default-label", "poll-interval"} }

// checkRepo refuses what cannot go with --repo, and the label flags
// without it. changed says whether a flag was given (on the command line
// or by its variable).
func (a *app) checkRepo(o serveOptions, changed func(string) bool) error {
	if o.repo.repo == "" {
		for _, name := range repoFlags() {
			if changed(name) {
				return usageError("--%s needs --repo PATH: labels are refs of a git repository", name)
			}
		}
		return nil
	}
	switch {
	case a.templates != "" && !a.workingCopyFound:
		return usageError("--repo and --templates name two libraries: serve one, from git with --repo or from a folder with --templates")
	case o.watch:
		return usageError("--watch does not apply to --repo: the labels follow their refs (--poll-interval, SIGHUP, POST /v1/reload)")
	case a.ref != "":
		return usageError("--ref does not apply to --repo: give each label its ref with --label NAME=REF")
	}
	return nil
}

// labelRegistry opens the registry --repo and the label flags describe,
// its libraries loaded with the command's limits. onRefresh is told each
// label's outcome of each refresh, the first included.
func (a *app) labelRegistry(ctx context.Context, o repoOptions, onRefresh func(labels.Outcome)) (*labels.Registry, error) {
	cfg, err := labels.Sources{File: o.labelsFile, Env: os.Getenv(labels.EnvVar), Flags: o.labels, Default: o.defaultLabel}.Config()
	if err != nil {
		return nil, err
	}
	return labels.New(ctx, o.repo, cfg, labels.Options{Engine: a.limitOptions(), OnRefresh: onRefresh})
}

// newLabelServer is the server of render serve --repo: its library is
// the default label's (reg.Initial), and every refresh is told to it (metrics, log,
// the default label's library). The outcomes of the first refresh, made
// before the server exists, are told once it does.
func (a *app) newLabelServer(ctx context.Context, o repoOptions, logger *slog.Logger) (*server.Server, error) {
	var (
		srv   *server.Server
		first []labels.Outcome
	)
	reg, err := a.labelRegistry(ctx, o, func(out labels.Outcome) {
		if srv == nil {
			first = append(first, out)
			return
		}
		srv.LabelRefreshed(out)
	})
	if err != nil {
		return nil, err
	}
	// The default label's library, or while it serves nothing (a broken
	// commit at start: not ready), another label's.
	srv = server.New(reg.Initial().Library)
	srv.Labels, srv.Logger = reg, logger
	for _, out := range first {
		srv.LabelRefreshed(out)
	}
	return srv, nil
}

// followLabels starts what keeps the labels current until ctx ends: the
// poller and SIGHUP. A refresh that fails is logged by the server
// (LabelRefreshed), label by label.
func followLabels(ctx context.Context, srv *server.Server, every time.Duration, logger *slog.Logger) {
	go srv.Labels.Poll(ctx, every)
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		defer signal.Stop(hup)
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				logger.Info("SIGHUP: reading the labels' refs again")
				srv.Reload(ctx)
			}
		}
	}()
}
