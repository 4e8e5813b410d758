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
	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/regular"
	"github.com/promptsmith/promptsmith/server"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// serveOptions are the flags of render serve.
type serveOptions struct {
	addr, tokenFile      string
	logFormat            string
	maxBody              int64
	watch                bool
	maxEventStreams      int
	cors, allowHosts     []string
	renderTimeout        time.Duration
	renderTimeoutGiven   bool
	maxRenders, maxQueue int
	http                 server.HTTPConfig
	repo                 repoOptions
	strictEnv            bool
}

func defaultServeOptions() serveOptions {
	return serveOptions{addr: "127.0.0.1:8080", logFormat: "text", maxBody: server.DefaultMaxBody, maxEventStreams: server.DefaultMaxEventStreams,
		renderTimeout: server.DefaultRenderTimeout, maxRenders: runtime.GOMAXPROCS(0), maxQueue: server.DefaultMaxQueue,
		http: server.DefaultHTTPConfig()}
}

// serveLong is render serve's help: the routes, and how the server
// bounds its work, guards who may call it, drains, records and follows a
// library as it changes.
const serveLong = `serve answers the same requests as the CLI over HTTP, for runtimes in any language:

  GET  /v1/variants                    variants, descriptions, examples
  GET  /v1/variants/{variant}/schema   the JSON Schema of a variant's input
  POST /v1/render/{variant}            body: input (JSON or YAML) → Result
  POST /v1/check/{variant}             body: input → {variant, ok, checks, ids, provenance}
  POST /v1/extract?depth=N             body: a rendered prompt → {depth, region, text}
  GET  /v1/version                     the program's version and the library's hash
  GET  /v1/libraries                   the labels, each with its commit and status (--repo)
  POST /v1/reload                      read the labels' refs again now (--repo)
  GET  /v1/openapi.json                the OpenAPI 3.1 document of all of them
  GET  /v1/audit/{hash-or-id}          a recorded prompt (with --audit)
  GET  /v1/audit/{hash-or-id}/chain    it and the prompts it embeds, to the root
  GET  /metrics                        Prometheus metrics
  GET  /livez                          the process serves (no token)
  GET  /readyz                         it can render and record now (no token)
  GET  /healthz                        the same as /readyz (no token)

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
The probes are outside these checks, for load balancers. /readyz answers 503
while the audit store does not answer within 0.8 s (or, with --repo, the
default label serves nothing), and from
SIGTERM on: SIGTERM or SIGINT turns /readyz 503 and keeps serving for
--drain-delay so that a load balancer stops sending, then stops taking
connections, lets the requests in flight finish (for at most
--shutdown-timeout) and then closes the audit store.
A render with --audit is answered only once its prompt is recorded: while the
store is down it answers 503 with Retry-After, and recovers by itself.
Traces: with OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_TRACES_EXPORTER=otlp) set,
each request, its render and each stage are sent as OpenTelemetry spans over
OTLP/HTTP, under the caller's traceparent; the other OTEL_* variables apply.
With --audit FILE or URL every rendered prompt is recorded (see render audit);
replicas of the server share one store with --audit postgres://USER@HOST/DB.
With --templates DIR --watch, edits to the working copy are picked up without a
restart; an edit that breaks the library is logged and the last good one stays.
The preview page at / follows each edit (GET /v1/events) and shows what breaks
in place of the prompt.
With --repo PATH, the library is read from git at named labels (--label
production=refs/tags/prod, --labels-file, PROMPTSMITH_LABELS): a request picks
one with ?label= or X-Promptsmith-Label (the --default-label otherwise: the
first label given when none is named), pins a
library with ?library=HASH (409 once the label serves another), and every
answer names its X-Promptsmith-Label and X-Promptsmith-Commit. The refs are
read again every --poll-interval, on SIGHUP and on POST /v1/reload: moving a
tag promotes without a restart. A commit whose library does not load leaves
its label on its last good version, and says so in GET /v1/libraries, the log
and promptsmith_label_failing; a label that cannot be served at start is
served as failing (its requests answer 503 naming the commit and the error)
while the others serve, and /readyz is ready while the default label serves.`

// serveCommand is render serve: its flags (serveOptions.register), the
// PROMPTSMITH_ variables that stand for them, and the server it runs.
func (a *app) serveCommand() *cobra.Command {
	o := defaultServeOptions()
	cmd := &cobra.Command{
		Use:               "serve [--addr HOST:PORT] [--templates DIR [--watch] | --repo PATH --label NAME=REF...] [--token-file FILE] [--cors-origin ORIGIN]... [--allow-host NAME]...",
		Short:             "Serve the HTTP API: render, check, extract, variants and schemas as JSON",
		Long:              serveLong,
		Args:              cobra.NoArgs,
		PersistentPreRunE: a.servePreRun(&o),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.checkRepo(o, func(name string) bool { return cmd.Flags().Changed(name) }); err != nil {
				return err
			}
			_, inEnv := os.LookupEnv(envName("render-timeout"))
			o.renderTimeoutGiven = inEnv || cmd.Flags().Changed("render-timeout")
			return a.serve(cmd.Context(), o)
		},
	}
	o.register(cmd.Flags())
	cmd.SetHelpFunc(func(c *cobra.Command, args []string) {
		c.Root().HelpFunc()(c, args)
		writeServeEnv(c.OutOrStdout(), c)
	})
	return cmd
}

// servePreRun reads the PROMPTSMITH_ variables into o's flags first,
// then runs the root's checks, whose one note (the working copy in use)
// is a record of the server's log.
func (a *app) servePreRun(o *serveOptions) func(cmd *cobra.Command, args []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := applyServeEnv(cmd); err != nil {
			return err
		}
		logger, err := serveLogger(a.stderr, o.logFormat)
		if err != nil {
			return err
		}
		if err := checkServeEnv(cmd, o.strictEnv, logger.Warn); err != nil {
			return err
		}
		stderr := a.stderr
		a.stderr = logLines{logger}
		defer func() { a.stderr = stderr }()
		return cmd.Root().PersistentPreRunE(cmd, args)
	}
}

// register defines the flags of render serve on f, with o's values as
// their defaults.
func (o *serveOptions) register(f *pflag.FlagSet) {
	f.StringVar(&o.addr, "addr", o.addr, "address to listen on (loopback by default)")
	f.StringVar(&o.logFormat, "log-format", o.logFormat, "the format of every log line the server writes to stderr: text (logfmt) or json; each request is one line naming its request id")
	f.Int64Var(&o.maxBody, "max-body", o.maxBody, "largest request body in bytes (413); the server holds at most --max-renders times this in bodies at once")
	f.BoolVar(&o.watch, "watch", false, "reload --templates DIR when its files change; the preview page at / follows")
	f.IntVar(&o.maxEventStreams, "max-event-streams", o.maxEventStreams, "preview pages (event streams of --watch) open at once")
	f.StringVar(&o.tokenFile, "token-file", "", "require the bearer token in this file on every request but the probes (/livez, /readyz, /healthz)")
	f.StringArrayVar(&o.cors, "cors-origin", nil, "let pages of this origin (https://host[:port]) call the API from a browser; repeatable; \"*\" for any; pages of other origins but the server's own get 403")
	f.StringArrayVar(&o.allowHosts, "allow-host", nil, "answer requests whose Host is this name too, besides loopback names, the host of --addr and the address the server was reached on; repeatable; \"*\" for any (only behind a proxy that checks Host, or with --token-file)")
	f.DurationVar(&o.renderTimeout, "render-timeout", o.renderTimeout, "longest one render may take, waiting for room for its body and for a slot included: by default --timeout and 5s more, so that a template past --timeout is answered as the template's fault (0: no limit)")
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
	f.DurationVar(&h.DrainDelay, "drain-delay", h.DrainDelay, "how long to keep serving, with /readyz answering 503, after SIGTERM or SIGINT and before closing the listener")
	o.repo.register(f)
	f.BoolVar(&o.strictEnv, "strict-env", false, "refuse to start when a PROMPTSMITH_ variable is set that render serve does not read (a misspelt PROMPTSMITH_ADRR); without it each is logged, with the name it is nearest to, and ignored")
}

// serve runs the server until SIGTERM or SIGINT, and returns once the
// requests in flight are answered: only then is the audit store closed.
func (a *app) serve(ctx context.Context, o serveOptions) error {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(100) // the runtime's default, for a process that runs long
	}
	logger, err := serveLogger(a.stderr, o.logFormat)
	if err != nil {
		return err
	}
	// The request lines name each render's ids: the engine's own render
	// log (--log) would be a second format on the same stream.
	a.log = false
	logEverythingTo(logger)
	srv, err := a.newServer(ctx, o, logger)
	if err != nil {
		return err
	}
	stopTracing, err := startTracing(ctx, srv, logger)
	if err != nil {
		return err
	}
	defer stopTracing() // after the requests in flight: their spans are sent
	closeAudit, err := a.serveAudit(ctx, srv, logger)
	if err != nil {
		return err
	}
	defer closeAudit()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if a.auditInputs && srv.Audit == nil {
		return usageError("--audit-inputs needs --audit FILE or URL: the inputs are kept in the audit store")
	}
	srv.AuditInputs = a.auditInputs
	if srv.Labels != nil {
		srv.StreamEvents(ctx) // GET /v1/events?label= follows a label as it moves
		followLabels(ctx, srv, o.repo.pollInterval, logger)
	}
	if o.watch {
		if a.templates == "" {
			return usageError("--watch needs --templates DIR: the embedded library never changes")
		}
		if err := a.watch(ctx, srv, logger); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return &engine.Error{Kind: engine.KindUsage, Flag: "--addr", Path: o.addr, Reason: "cannot listen: " + err.Error(), Err: err,
			Hints: []string{"choose another --addr, e.g. 127.0.0.1:0 for any free port"}}
	}
	logger.Info("serving", "url", "http://"+ln.Addr().String(), "version", engine.Version(), "library", srv.Library().Provenance().Short,
		"tracing", srv.Tracer != nil)
	go func() {
		<-ctx.Done()
		logger.Info("shutting down", "drain_delay", o.http.DrainDelay.String(), "shutdown_timeout", o.http.ShutdownTimeout.String())
	}()
	o.http.ErrorLog = logger
	if err := server.Serve(ctx, ln, srv, o.http); err != nil {
		logger.Error("stopped", "error", err.Error())
		return err
	}
	logger.Info("stopped")
	return nil
}

// startTracing gives srv the tracer the OTEL_ variables ask for, if any;
// stop sends the spans still held, waiting at most 5 s, and logs what it
// could not send.
func startTracing(ctx context.Context, srv *server.Server, logger *slog.Logger) (stop func(), err error) {
	tracer, stopTracing, err := tracingFromEnv(ctx)
	if err != nil {
		return nil, err
	}
	srv.Tracer = tracer
	return func() {
		stop, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := stopTracing(stop); err != nil {
			logger.Warn("could not send the last spans", "error", err.Error())
		}
	}, nil
}

// serveAudit gives srv the audit store of --audit, if any. A database
// that does not answer yet is not an error: the server serves unready
// and opens the store once it does (auditpending.go). close closes the
// store, once the requests in flight are answered.
func (a *app) serveAudit(ctx context.Context, srv *server.Server, logger *slog.Logger) (close func(), err error) {
	if a.audit == "" {
		return func() {}, nil
	}
	store, err := a.openAudit(ctx, false)
	switch {
	case err == nil:
		srv.Audit = store
		return func() { store.Close() }, nil
	case unreachable(err):
		logger.Warn("the audit store does not answer: not ready until it does", "error", engine.AsError(err).Bounded().Error())
		pending := &pendingAudit{open: func() (*audit.Store, error) { return a.openAudit(ctx, false) }, retry: time.Second,
			opened: func() { logger.Info("the audit store answers: ready") }}
		srv.Audit = pending
		return func() { pending.Close() }, nil
	default:
		return nil, err
	}
}

// newServer is the server the options describe, on the library the
// command's flags name.
func (a *app) newServer(ctx context.Context, o serveOptions, logger *slog.Logger) (*server.Server, error) {
	var srv *server.Server
	if o.repo.repo != "" {
		var err error
		if srv, err = a.newLabelServer(ctx, o.repo, logger); err != nil {
			return nil, err
		}
	} else {
		lib, err := a.library()
		if err != nil {
			return nil, err
		}
		srv = server.New(lib)
	}
	srv.MaxBody = o.maxBody
	srv.Logger = logger
	srv.CORSOrigins = o.cors
	srv.AllowedHosts = serveHosts(o.addr, o.allowHosts)
	srv.RenderTimeout, srv.MaxRenders, srv.MaxQueue = a.renderTimeout(o, logger), o.maxRenders, o.maxQueue
	srv.Tokens, srv.MaxEventStreams = a.tokens, o.maxEventStreams
	if a.templates != "" && srv.Labels == nil { // golden files and lint for the preview page
		srv.WorkingCopy, _ = engine.Root(a.templates)
	}
	if o.tokenFile != "" {
		var err error
		if srv.Token, err = readToken(o.tokenFile); err != nil {
			return nil, err
		}
	}
	return srv, nil
}

// renderTimeout is --render-timeout: unless given, the render's own
// --timeout and the wait server.DefaultRenderTimeout allows beyond the
// engine's default, so that a template that runs away meets --timeout
// first and is answered as the template's fault (500), not as a server
// too busy to finish (503, retry). One given at or below --timeout is
// kept, and the log says what it does; so it does of one that leaves
// --write-timeout no time to send the answer.
func (a *app) renderTimeout(o serveOptions, logger *slog.Logger) time.Duration {
	limit := engine.LimitsOf(a.limitOptions()...).Timeout
	d := o.renderTimeout
	if !o.renderTimeoutGiven {
		d = limit + server.DefaultRenderTimeout - engine.DefaultLimits().Timeout
	}
	if o.renderTimeoutGiven && d > 0 && d <= limit {
		logger.Warn("--render-timeout is not above --timeout: a render that runs past it is answered 503 (retry), even one whose template loops",
			"render_timeout", d.String(), "timeout", limit.String())
	}
	if w := o.http.WriteTimeout; w > 0 && (d <= 0 || d >= w) {
		logger.Warn("--write-timeout is not above --render-timeout: the answer to a render that takes that long is cut off",
			"render_timeout", d.String(), "write_timeout", w.String())
	}
	return d
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
	data, err := regular.ReadFile(path, 0)
	if err != nil {
		return "", fileError(path, "cannot read the token file", err, notRegularHint(err, "a token")...)
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
func (a *app) watch(ctx context.Context, srv *server.Server, logger *slog.Logger) error {
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
				logger.Warn("watch", "error", err.Error())
			case <-pending:
				pending = nil
				lib, err := a.library()
				if err != nil {
					srv.ReloadFailed(err)
					logger.Error("reload failed, still serving the previous library", "error", err.Error())
					continue
				}
				// A broken variant keeps its last good version; the rest is new.
				// Swap counts the failure of what is broken.
				lib = lib.Fallback(srv.Library())
				srv.Swap(lib)
				if err := lib.Err(); err != nil {
					logger.Error("reload failed for what is broken, still serving its last good version", "error", err.Error())
					continue
				}
				logger.Info("library reloaded", "library", lib.Provenance().Short)
			}
		}
	}()
	return nil
}
