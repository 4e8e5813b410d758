package main

import (
	"context"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/server"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// serveOptions are the flags of render serve.
type serveOptions struct {
	addr, tokenFile      string
	maxBody              int64
	watch                bool
	maxEventStreams      int
	cors, allowHosts     []string
	renderTimeout        time.Duration
	maxRenders, maxQueue int
	http                 server.HTTPConfig
}

func defaultServeOptions() serveOptions {
	return serveOptions{addr: "127.0.0.1:8080", maxBody: server.DefaultMaxBody, maxEventStreams: server.DefaultMaxEventStreams,
		renderTimeout: server.DefaultRenderTimeout, maxRenders: runtime.GOMAXPROCS(0), maxQueue: server.DefaultMaxQueue,
		http: server.DefaultHTTPConfig()}
}

func (a *app) serveCommand() *cobra.Command {
	o := defaultServeOptions()
	cmd := &cobra.Command{
		Use:   "serve [--addr HOST:PORT] [--templates DIR [--watch]] [--token-file FILE] [--cors-origin ORIGIN]... [--allow-host NAME]...",
		Short: "Serve the HTTP API: render, check, extract, variants and schemas as JSON",
		Long: `serve answers the same requests as the CLI over HTTP, for runtimes in any language:

  GET  /v1/variants                    variants, descriptions, examples
  GET  /v1/variants/{variant}/schema   the JSON Schema of a variant's input
  POST /v1/render/{variant}            body: input (JSON or YAML) → Result
  POST /v1/check/{variant}             body: input → {variant, ok, checks, ids, provenance}
  POST /v1/extract?depth=N             body: a rendered prompt → {depth, region, text}
  GET  /v1/version                     the program's version and the library's hash
  GET  /v1/openapi.json                the OpenAPI 3.1 document of all of them
  GET  /metrics                        Prometheus metrics
  GET  /healthz                        open even with --token-file

Input errors answer 422, unknown variants 404, library errors 500, each as
{"error": {"kind", "reason", "field", "position", "hints", ...}}.
At most --max-renders renders run at once and --max-queue more wait; past
that, and past --render-timeout, the server answers 503 with Retry-After.
A body is read only once there is room for it in --max-renders × --max-body
bytes, and must arrive at --min-body-rate; one client address may hold
--max-conns-per-client connections.
The server answers only to loopback names, the host of --addr, the address
it was reached on and each --allow-host (421 otherwise: DNS rebinding), and
to browser pages of its own origin and each --cors-origin (403 otherwise).
A render or check body must be JSON or YAML by its Content-Type (415
otherwise; none at all is taken from clients that are not browsers).
/healthz is outside these checks, for load balancers' probes.
SIGTERM or SIGINT stops taking connections, lets the requests in flight
finish (for at most --shutdown-timeout) and then closes the audit store.
With --audit FILE or URL every rendered prompt is recorded (see render audit);
replicas of the server share one store with --audit postgres://USER@HOST/DB.
With --templates DIR --watch, edits to the working copy are picked up without a
restart; an edit that breaks the library is logged and the last good one stays.
The preview page at / follows each edit (GET /v1/events) and shows what breaks
in place of the prompt.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return a.serve(cmd.Context(), o) },
	}
	o.register(cmd.Flags())
	return cmd
}

func (o *serveOptions) register(f *pflag.FlagSet) {
	f.StringVar(&o.addr, "addr", o.addr, "address to listen on (loopback by default)")
	f.Int64Var(&o.maxBody, "max-body", o.maxBody, "largest request body in bytes (413); the server holds at most --max-renders times this in bodies at once")
	f.BoolVar(&o.watch, "watch", false, "reload --templates DIR when its files change; the preview page at / follows")
	f.IntVar(&o.maxEventStreams, "max-event-streams", o.maxEventStreams, "preview pages (event streams of --watch) open at once")
	f.StringVar(&o.tokenFile, "token-file", "", "require the bearer token in this file on every request but /healthz")
	f.StringArrayVar(&o.cors, "cors-origin", nil, "let pages of this origin (https://host[:port]) call the API from a browser; repeatable; \"*\" for any; pages of other origins but the server's own get 403")
	f.StringArrayVar(&o.allowHosts, "allow-host", nil, "answer requests whose Host is this name too, besides loopback names, the host of --addr and the address the server was reached on; repeatable; \"*\" for any (only behind a proxy that checks Host, or with --token-file)")
	f.DurationVar(&o.renderTimeout, "render-timeout", o.renderTimeout, "longest one render may take, waiting for a slot included (0: no limit)")
	f.IntVar(&o.maxRenders, "max-renders", o.maxRenders, "renders that run at once (the number of CPUs Go uses unless set)")
	f.IntVar(&o.maxQueue, "max-queue", o.maxQueue, "renders that may wait for a slot; past them the server answers 503")
	h := &o.http
	f.DurationVar(&h.ReadHeaderTimeout, "read-header-timeout", h.ReadHeaderTimeout, "longest time to read a request's headers")
	f.DurationVar(&h.ReadTimeout, "read-timeout", h.ReadTimeout, "longest time to read a whole request, body included")
	f.DurationVar(&h.WriteTimeout, "write-timeout", h.WriteTimeout, "longest time from a request's headers to the end of its response")
	f.DurationVar(&h.IdleTimeout, "idle-timeout", h.IdleTimeout, "longest time a kept-alive connection waits for its next request")
	f.IntVar(&h.MaxHeaderBytes, "max-header-bytes", h.MaxHeaderBytes, "largest request line and headers in bytes")
	f.IntVar(&h.MaxConns, "max-conns", h.MaxConns, "connections open at once; more wait to be accepted")
	f.IntVar(&h.MaxConnsPerClient, "max-conns-per-client", h.MaxConnsPerClient, "connections open at once from one IP address; more are answered 429 and closed (0: no limit; behind a proxy every client has its address)")
	f.Int64Var(&h.MinBodyRate, "min-body-rate", h.MinBodyRate, "slowest a request body may arrive, in bytes a second on average, once --body-rate-grace has passed; slower ones are answered 408 and closed (0: no minimum)")
	f.DurationVar(&h.BodyRateGrace, "body-rate-grace", h.BodyRateGrace, "how long a request body may take before --min-body-rate applies")
	f.DurationVar(&h.ShutdownTimeout, "shutdown-timeout", h.ShutdownTimeout, "longest wait for the requests in flight on SIGTERM or SIGINT")
}

// serve runs the server until SIGTERM or SIGINT, and returns once the
// requests in flight are answered: only then is the audit store closed.
func (a *app) serve(ctx context.Context, o serveOptions) error {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(100) // the runtime's default, for a process that runs long
	}
	srv, err := a.newServer(o)
	if err != nil {
		return err
	}
	if a.audit != "" {
		store, err := a.openAudit(false)
		if err != nil {
			return err
		}
		defer store.Close()
		srv.Record = func(v *engine.Variant, res *engine.Result) error {
			_, err := store.Record(v, res)
			return err
		}
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.watch {
		if a.templates == "" {
			return usageError("--watch needs --templates DIR: the embedded library never changes")
		}
		if err := a.watch(ctx, srv); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return &engine.Error{Kind: engine.KindUsage, Flag: "--addr", Path: o.addr, Reason: "cannot listen: " + err.Error(), Err: err,
			Hints: []string{"choose another --addr, e.g. 127.0.0.1:0 for any free port"}}
	}
	a.say("serving on http://%s", ln.Addr())
	go func() {
		<-ctx.Done()
		a.say("shutting down: finishing the requests in flight (at most %s)", o.http.ShutdownTimeout)
	}()
	if err := server.Serve(ctx, ln, srv, o.http); err != nil {
		return err
	}
	a.say("stopped")
	return nil
}

// newServer is the server the options describe, on the library the
// command's flags name.
func (a *app) newServer(o serveOptions) (*server.Server, error) {
	lib, err := a.library()
	if err != nil {
		return nil, err
	}
	srv := server.New(lib)
	srv.MaxBody = o.maxBody
	srv.Logger = slog.New(slog.NewTextHandler(a.stderr, nil))
	srv.CORSOrigins = o.cors
	srv.AllowedHosts = serveHosts(o.addr, o.allowHosts)
	srv.RenderTimeout, srv.MaxRenders, srv.MaxQueue = o.renderTimeout, o.maxRenders, o.maxQueue
	srv.Tokens, srv.MaxEventStreams = a.tokens, o.maxEventStreams
	if a.templates != "" { // golden files and lint for the preview page
		srv.WorkingCopy, _ = engine.Root(a.templates)
	}
	if o.tokenFile != "" {
		if srv.Token, err = readToken(o.tokenFile); err != nil {
			return nil, err
		}
	}
	return srv, nil
}

// serveHosts are the names the server answers to besides the loopback ones
// and the address it was reached on: the host of --addr, unless it is a
// wildcard address (it names no host), and each --allow-host.
func serveHosts(addr string, allow []string) []string {
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || host == "" || ip != nil && ip.IsUnspecified() {
		return allow
	}
	return append([]string{host}, allow...)
}

// readToken reads the bearer token of --token-file: the file's content
// without the white space around it.
func readToken(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fileError(path, "cannot read the token file", err)
	}
	token := strings.TrimSpace(string(data))
	if token == "" {
		return "", &engine.Error{Kind: engine.KindUsage, Flag: "--token-file", Path: path, Reason: "the token file is empty",
			Hints: []string{"write a long random token in it, e.g. openssl rand -hex 32 > " + path}}
	}
	return token, nil
}

// watch reloads the working copy into srv whenever a file under it changes,
// and streams each reload to the preview pages (GET /v1/events) until ctx
// ends. A library that no longer loads is reported and the previous one
// kept; a variant that no longer loads keeps its last good version.
func (a *app) watch(ctx context.Context, srv *server.Server) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	root, err := engine.Root(a.templates)
	if err != nil {
		return err
	}
	srv.StreamEvents(ctx)
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
					srv.ReloadFailed(err)
					a.say("reload failed, still serving the previous library:\n%v", err)
					continue
				}
				// A broken variant keeps its last good version; the rest is new.
				// Swap counts the failure of what is broken.
				lib = lib.Fallback(srv.Library())
				srv.Swap(lib)
				if err := lib.Err(); err != nil {
					a.say("reload failed for what is broken, still serving its last good version:\n%v", err)
					continue
				}
				a.say("library reloaded")
			}
		}
	}()
	return nil
}
