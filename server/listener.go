package server

import (
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/promptsmith/promptsmith/engine"
)

// DefaultMaxConnsPerClient bounds the connections one client address may
// have open at once: a browser opens six per host, a pool of kept-alive
// clients a few dozen; past it one client would be taking the places of
// the others (--max-conns).
const DefaultMaxConnsPerClient = 64

// refuseWriteTimeout bounds the write of the answer to a connection over
// the per-client limit: the Accept loop does not wait on a client.
const refuseWriteTimeout = 100 * time.Millisecond

// limitListener accepts at most cap(places) connections open at once, waiting
// to accept more while they are, and at most perClient from one IP
// address. A connection past its client's limit is answered 429 at once,
// without reading its request, and closed; Accept goes on to the next, so
// that it holds none of the places. (netutil.LimitListener did the
// first; its connections hide CloseWrite, which net/http uses to close a
// connection cleanly after answering a request whose body it left unread.)
type limitListener struct {
	net.Listener
	places    chan struct{} // one token per connection open; nil for no limit
	perClient int           // 0 for no limit
	done      chan struct{} // closed by Close
	closeOnce sync.Once
	mu        sync.Mutex
	open      map[netip.Addr]int
}

// limitConns returns ln limited to total connections at once and perClient
// from one address (no limit for either below 1).
func limitConns(ln net.Listener, total, perClient int) net.Listener {
	if total < 1 && perClient < 1 {
		return ln
	}
	l := &limitListener{Listener: ln, perClient: max(perClient, 0), done: make(chan struct{}), open: map[netip.Addr]int{}}
	if total > 0 {
		l.places = make(chan struct{}, total)
	}
	return l
}

func (l *limitListener) Accept() (net.Conn, error) {
	if l.places != nil {
		select {
		case l.places <- struct{}{}:
		case <-l.done:
			return nil, net.ErrClosed
		}
	}
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			l.givePlace()
			return nil, err
		}
		ip := clientAddr(c)
		if l.take(ip) {
			return &limitedConn{Conn: c, release: func() { l.give(ip); l.givePlace() }}, nil
		}
		l.refuse(c)
	}
}

func (l *limitListener) Close() error {
	err := l.Listener.Close()
	l.closeOnce.Do(func() { close(l.done) })
	return err
}

func (l *limitListener) givePlace() {
	if l.places != nil {
		<-l.places
	}
}

func (l *limitListener) take(ip netip.Addr) bool {
	if l.perClient < 1 {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[ip] >= l.perClient {
		return false
	}
	l.open[ip]++
	return true
}

func (l *limitListener) give(ip netip.Addr) {
	if l.perClient < 1 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[ip]--; l.open[ip] <= 0 {
		delete(l.open, ip)
	}
}

// refuse answers a connection over the limit with 429, in the server's
// error body, and closes it. The answer is best effort: a client that
// sent its request already may see the connection reset instead.
func (l *limitListener) refuse(c net.Conn) {
	body, _ := json.Marshal(errorBody{Error: wireError(&engine.Error{Kind: engine.KindUnavailable,
		Reason: fmt.Sprintf("this client has %d connections open to the server already, as many as it allows one address", l.perClient),
		Hints: []string{"reuse kept-alive connections or close idle ones, and retry after the seconds in Retry-After; " +
			"an operator can raise --max-conns-per-client (behind a proxy every client has the proxy's address)"}})})
	c.SetWriteDeadline(time.Now().Add(refuseWriteTimeout))
	fmt.Fprintf(c, "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"+
		"Retry-After: 1\r\nConnection: close\r\n\r\n%s", len(body), body)
	c.Close()
}

// clientAddr is the IP address a connection comes from; the zero Addr
// for a connection without one (all such count as one client).
func clientAddr(c net.Conn) netip.Addr {
	if tcp, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return tcp.AddrPort().Addr().Unmap().WithZone("")
	}
	return netip.Addr{}
}

// limitedConn gives its places back when it is closed, once, and lets
// net/http close its writing side alone.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// CloseWrite sends a FIN while the client may still be sending: net/http
// does so, and waits a little, before closing a connection whose request
// body it left unread, so that the client reads the answer rather than a
// reset.
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
