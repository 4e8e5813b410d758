package labels_test

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/promptsmith/promptsmith/internal/labels"
)

// A server's wiring, as render serve --repo would do it: the labels from
// its flags, file and environment, a poller, SIGHUP, and a render that
// keeps the snapshot it looked up.
func Example() {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	cfg, err := labels.Sources{
		File:    "",                                    // --labels-file
		Env:     os.Getenv(labels.EnvVar),              // PROMPTSMITH_LABELS
		Flags:   []string{"production=refs/tags/prod"}, // each --label
		Default: "",                                    // --default-label
	}.Config()
	if err != nil {
		return // the command prints err and exits 2
	}
	reg, err := labels.New(ctx, "/srv/prompts.git", cfg, labels.Options{
		OnRefresh: func(o labels.Outcome) {
			if o.Err != nil && o.Attempted {
				slog.Error("label stays on its last good version", "label", o.Label, "commit", o.Commit, "error", o.Err)
			}
		},
	})
	if err != nil {
		return
	}
	go reg.Poll(ctx, 30*time.Second) // --poll-interval
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		for range hup {
			reg.Refresh(ctx)
		}
	}()

	// A request: ?label= (or X-Promptsmith-Label) and ?library=.
	snap, err := reg.Lookup("", "")
	if err != nil {
		return // errors.Is(err, labels.ErrConflict): 409; labels.ErrUnknownLabel: 404
	}
	v, _ := snap.Library.Variant("note") // X-Promptsmith-Label: snap.Label, X-Promptsmith-Commit: snap.Commit
	_ = v
}
