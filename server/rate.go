package server

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

// DefaultMinBodyRate is the slowest a request body may arrive, on average,
// once DefaultBodyRateGrace has passed: far below any real link, far above
// a client that sends a byte a second to hold a connection open.
const DefaultMinBodyRate = 1 << 10

// DefaultBodyRateGrace is how long a body may take before the minimum
// rate applies: a slow start, a TLS proxy's buffering.
const DefaultBodyRateGrace = 5 * time.Second

// minBodyRate makes every request body of h arrive at rate bytes a second
// or more on average, once grace has passed since the handler began
// reading it: by then + grace + n/rate it must have sent n bytes. The
// connection's read deadline is moved as bytes arrive, so a client that
// stops sending is cut off at the deadline rather than at readTimeout;
// readTimeout, when set, still bounds the whole body (counted here from
// the end of the headers). A body not read (a request refused first, or
// one waiting for room in the body budget) is not timed.
func minBodyRate(h http.Handler, rate int64, grace, readTimeout time.Duration) http.Handler {
	if rate <= 0 {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			b := &rateBody{ReadCloser: r.Body, rc: http.NewResponseController(w), rate: rate, grace: grace, timeout: readTimeout}
			if readTimeout > 0 {
				b.limit = time.Now().Add(readTimeout)
			}
			r.Body = b
		}
		h.ServeHTTP(w, r)
	})
}

// rateBody is a request body read under minBodyRate.
type rateBody struct {
	io.ReadCloser
	rc      *http.ResponseController
	rate    int64
	grace   time.Duration
	timeout time.Duration
	limit   time.Time // the end of readTimeout; zero for none
	start   time.Time // the first Read
	n       int64     // bytes read
	done    bool      // read to its end: net/http owns the deadline again
}

func (b *rateBody) Read(p []byte) (int, error) {
	if b.done {
		return b.ReadCloser.Read(p)
	}
	if b.start.IsZero() {
		b.start = time.Now()
	}
	due := b.start.Add(b.grace + time.Duration(float64(b.n+1)/float64(b.rate)*float64(time.Second)))
	if !b.limit.IsZero() && b.limit.Before(due) {
		due = b.limit
	}
	b.rc.SetReadDeadline(due)
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	switch {
	case err == io.EOF:
		b.done = true
	case err != nil && errors.Is(err, os.ErrDeadlineExceeded):
		slow := &slowBodyError{rate: b.rate, err: err}
		if due.Equal(b.limit) {
			slow.timeout = b.timeout
		}
		return n, slow
	}
	return n, err
}

// slowBodyError is the error of a body that arrived slower than
// --min-body-rate, or not within --read-timeout (timeout is set).
type slowBodyError struct {
	rate    int64
	timeout time.Duration
	err     error
}

func (e *slowBodyError) Error() string {
	if e.timeout > 0 {
		return fmt.Sprintf("the request body did not arrive within the server's --read-timeout of %s", e.timeout)
	}
	return fmt.Sprintf("the request body arrived slower than the server's --min-body-rate of %d bytes a second", e.rate)
}

func (e *slowBodyError) Unwrap() error { return e.err }
