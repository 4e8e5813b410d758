package server

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// HTTPConfig bounds the connections of the HTTP server: how long each
// phase of a request may take, how large its headers may be, how many
// connections may be open at once, and how long a shutdown waits for the
// requests in flight. render serve has a flag for each.
type HTTPConfig struct {
	ReadHeaderTimeout time.Duration // to read a request's headers
	ReadTimeout       time.Duration // to read a whole request, body included
	WriteTimeout      time.Duration // from the end of the headers to the end of the response
	IdleTimeout       time.Duration // a kept-alive connection waiting for its next request
	MaxHeaderBytes    int           // request line and headers
	MaxConns          int           // connections open at once; further ones wait to be accepted
	MaxConnsPerClient int           // connections open at once from one IP address; further ones are answered 429 and closed
	MinBodyRate       int64         // bytes a second a request body must arrive at, on average, after BodyRateGrace (0: no minimum)
	BodyRateGrace     time.Duration // how long a body may take before MinBodyRate applies
	ShutdownTimeout   time.Duration // how long a shutdown waits for requests in flight
	DrainDelay        time.Duration // how long the listener stays open after the shutdown begins, answering /readyz 503 so that a load balancer stops sending requests
	// ErrorLog receives what the HTTP server itself reports (a connection
	// it could not serve), at WARN; nil: the standard logger.
	ErrorLog *slog.Logger
}

// DefaultHTTPConfig is what render serve uses without flags: generous for a
// 16 MiB body on a slow link and a render of many seconds (WriteTimeout is
// above DefaultRenderTimeout), tight on headers and idle connections.
func DefaultHTTPConfig() HTTPConfig {
	return HTTPConfig{
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		MaxConns:          512,
		MaxConnsPerClient: DefaultMaxConnsPerClient,
		MinBodyRate:       DefaultMinBodyRate,
		BodyRateGrace:     DefaultBodyRateGrace,
		ShutdownTimeout:   30 * time.Second,
		DrainDelay:        DefaultDrainDelay,
	}
}

// DefaultDrainDelay is how long a server keeps its listener open once told
// to stop, answering not ready: a load balancer probing every second or
// two, taking a replica out after two failures, has stopped sending by then.
const DefaultDrainDelay = 5 * time.Second

// drainer is a handler that can be told it is going away (Server.Drain).
type drainer interface{ Drain() }

// HTTPServer is the one place an http.Server for h is made: with c's
// timeouts, header limit and minimum body rate.
func HTTPServer(h http.Handler, c HTTPConfig) *http.Server {
	return &http.Server{
		Handler:           minBodyRate(h, c.MinBodyRate, c.BodyRateGrace, c.ReadTimeout),
		ReadHeaderTimeout: c.ReadHeaderTimeout,
		ReadTimeout:       c.ReadTimeout,
		WriteTimeout:      c.WriteTimeout,
		IdleTimeout:       c.IdleTimeout,
		MaxHeaderBytes:    c.MaxHeaderBytes,
		ErrorLog:          errorLog(c.ErrorLog),
	}
}

// errorLog is the log.Logger http.Server writes to, on l's handler.
func errorLog(l *slog.Logger) *log.Logger {
	if l == nil {
		return nil
	}
	return slog.NewLogLogger(l.Handler(), slog.LevelWarn)
}

// Serve serves h on ln, at most c.MaxConns connections at once and
// c.MaxConnsPerClient from one address, until ctx ends. Then it tells h it
// drains (a Server's /readyz turns 503), serves on for c.DrainDelay so that
// a load balancer sees it and stops sending requests, then stops
// accepting connections, closes the idle ones, lets the requests in flight
// finish (for at most c.ShutdownTimeout, after which it closes their
// connections) and returns: whatever the caller closes after Serve returns
// (an audit store) has seen every request answered.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, c HTTPConfig) error {
	ln = limitConns(ln, c.MaxConns, c.MaxConnsPerClient)
	hs := HTTPServer(h, c)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err // the listener failed: nothing is in flight
	case <-ctx.Done():
	}
	if d, ok := h.(drainer); ok {
		d.Drain()
	}
	if c.DrainDelay > 0 {
		select {
		case <-time.After(c.DrainDelay):
		case err := <-served:
			return err
		}
	}
	stop := context.Background()
	if c.ShutdownTimeout > 0 {
		var cancel context.CancelFunc
		stop, cancel = context.WithTimeout(stop, c.ShutdownTimeout)
		defer cancel()
	}
	err := hs.Shutdown(stop)
	if errors.Is(err, context.DeadlineExceeded) {
		hs.Close()
		err = fmt.Errorf("requests were still running %s after the shutdown began; their connections were closed", c.ShutdownTimeout)
	}
	if serr := <-served; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
