package main

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/server"
	"github.com/spf13/cobra"
)

func (a *app) serveCommand() *cobra.Command {
	var addr string
	var maxBody int64
	var watch bool
	cmd := &cobra.Command{
		Use:   "serve [--addr HOST:PORT] [--templates DIR [--watch]]",
		Short: "Serve the HTTP API: render, check, extract, variants and schemas as JSON",
		Long: `serve answers the same requests as the CLI over HTTP, for runtimes in any language:

  GET  /v1/variants                    variants, descriptions, examples
  GET  /v1/variants/{variant}/schema   the JSON Schema of a variant's input
  POST /v1/render/{variant}            body: input (JSON or YAML) → Result
  POST /v1/check/{variant}             body: input → {ok, checks, ids}
  POST /v1/extract?depth=N             body: a rendered prompt → {text}
  GET  /healthz

Input errors answer 422, unknown variants 404, library errors 500, each as
{"error": {"kind", "reason", "field", "position", "hints"}}.
With --audit FILE every rendered prompt is recorded (see render audit).
With --templates DIR --watch, edits to the working copy are picked up without a
restart; an edit that breaks the library is logged and the last good one stays.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			lib, err := a.library()
			if err != nil {
				return err
			}
			srv := server.New(lib)
			srv.MaxBody = maxBody
			if a.audit != "" {
				store, err := audit.Open(a.audit)
				if err != nil {
					return err
				}
				defer store.Close()
				srv.Record = func(v *engine.Variant, res *engine.Result) error {
					_, err := store.Record(v, res)
					return err
				}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if watch {
				if a.templates == "" {
					return usageError("--watch needs --templates DIR: the embedded library never changes")
				}
				if err := a.watch(ctx, srv); err != nil {
					return err
				}
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return &cliError{Kind: engine.KindUsage, Flag: "--addr", Path: addr, Reason: "cannot listen: " + err.Error(), err: err,
					Hints: []string{"choose another --addr, e.g. 127.0.0.1:0 for any free port"}}
			}
			a.say("serving on http://%s", ln.Addr())
			hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
			go func() {
				<-ctx.Done()
				shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				hs.Shutdown(shutdown)
			}()
			if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "address to listen on")
	cmd.Flags().Int64Var(&maxBody, "max-body", server.DefaultMaxBody, "largest request body in bytes")
	cmd.Flags().BoolVar(&watch, "watch", false, "reload --templates DIR when its files change")
	return cmd
}

// watch reloads the working copy into srv whenever a file under it changes.
// A library that no longer loads is reported and the previous one kept.
func (a *app) watch(ctx context.Context, srv *server.Server) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	root, err := engine.Root(a.templates)
	if err != nil {
		return err
	}
	addDirs := func() {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				w.Add(p)
			}
			return nil
		})
	}
	addDirs()
	go func() {
		defer w.Close()
		var pending <-chan time.Time
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if ev.Has(fsnotify.Create) {
					addDirs()
				}
				pending = time.After(100 * time.Millisecond) // editors write in bursts
			case err, ok := <-w.Errors:
				if !ok {
					return
				}
				a.say("watch: %v", err)
			case <-pending:
				pending = nil
				lib, err := a.library()
				if err != nil {
					a.say("reload failed, still serving the previous library:\n%v", err)
					continue
				}
				srv.Swap(lib)
				a.say("library reloaded")
			}
		}
	}()
	return nil
}
