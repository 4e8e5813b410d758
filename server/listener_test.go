package server_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/server"
)

// serveOn serves srv with c on a loopback port until the test ends, and
// returns its address.
func serveOn(t *testing.T, srv *server.Server, c server.HTTPConfig) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- server.Serve(ctx, ln, srv, c) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return ln.Addr().String()
}

// otherClient dials from 127.0.0.2, a client address of its own beside
// the tests' 127.0.0.1; the test skips where the system has no such
// loopback address.
func otherClient(t *testing.T, addr string) *net.Dialer {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}, Timeout: 10 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Skipf("cannot dial from 127.0.0.2: %v", err)
	}
	c.Close()
	return d
}

// TestSlowClientsDoNotStarveOthers: 100 connections from one address
// send a body at 20 bytes a second, and open a new one each time one is
// closed, while another client sends its render. With a token the slow
// bodies are unauthenticated and answered 401 before a byte of them is
// read; without one they are read, and cut off (408) once they fall below
// --min-body-rate; beyond --max-conns-per-client the attacker's
// connections are answered 429. Either way the other client is answered
// 200; then the attackers open no more connections, and the server ends
// each one still open itself: none lasts the attacker's own bound. Nothing
// here measures a time: the context of the request and the attacker's
// bound are only there to end a hung test.
func TestSlowClientsDoNotStarveOthers(t *testing.T) {
	t.Parallel()
	lib, _ := promptsmith.Library()
	for _, c := range []struct {
		name, token string
		status      string // the status slow bodies get besides 429
	}{
		{"unauthenticated bodies", "tok", "401"},
		{"bodies on a server without a token", "", "408"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := server.New(lib)
			srv.Token = c.token
			cfg := testHTTPConfig()
			cfg.MaxConns, cfg.MaxConnsPerClient = 64, 16
			cfg.MinBodyRate, cfg.BodyRateGrace = 1024, 200*time.Millisecond
			addr := serveOn(t, srv, cfg)
			dialer := otherClient(t, addr)

			const attackers, drips = 100, 200 // 200 drips of 50 ms: a connection's own bound is 10 s
			ctx, stop := context.WithCancel(context.Background())
			defer stop()
			var enough atomic.Bool // no new connections: the open ones go on until they end
			var wg sync.WaitGroup
			var opened, outlasted atomic.Int64
			var mu sync.Mutex
			statuses := map[string]int{}
			first := make(chan struct{}, attackers)
			for range attackers {
				wg.Go(func() {
					var once sync.Once
					for i := 0; i < 1000 && !enough.Load(); i++ {
						status, cut := slowBody(ctx, dialer, addr, drips, func() { once.Do(func() { first <- struct{}{} }) })
						if status == "" && !cut {
							continue // stopped by the test, or not connected
						}
						opened.Add(1)
						if !cut {
							outlasted.Add(1)
						}
						mu.Lock()
						statuses[status]++
						mu.Unlock()
					}
				})
			}
			for range attackers {
				<-first // every attacker has a connection open, or had one
			}

			reqCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(reqCtx, "POST", "http://"+addr+"/v1/render/delegation", strings.NewReader(input))
			req.Header.Set("Content-Type", "application/json")
			if c.token != "" {
				req.Header.Set("Authorization", "Bearer "+c.token)
			}
			client := &http.Client{Transport: &http.Transport{}}
			resp, err := client.Do(req)
			enough.Store(true)
			wg.Wait()
			if err != nil {
				t.Fatalf("the other client was not answered while the slow ones ran: %v", err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("the other client: %d", resp.StatusCode)
			}
			mu.Lock()
			defer mu.Unlock()
			if outlasted.Load() != 0 {
				t.Errorf("%d of %d slow connections were left open to the attacker's own bound", outlasted.Load(), opened.Load())
			}
			for status := range statuses {
				if status != c.status && status != "429" && status != "closed" {
					t.Errorf("slow bodies were answered %s: %v", status, statuses)
				}
			}
			if statuses[c.status] == 0 || statuses["429"] == 0 {
				t.Errorf("slow bodies were answered %v, want %s and 429", statuses, c.status)
			}
		})
	}
}

// slowBody opens a connection, sends a render's headers declaring a body
// of 100,000 bytes, and then one byte of it every 50 ms, drips times at
// most; dialled is called once it is connected. It returns the status of
// the answer ("closed" for a connection closed without one) and whether
// the server ended the connection before the body was sent.
func slowBody(ctx context.Context, d *net.Dialer, addr string, drips int, dialled func()) (status string, cut bool) {
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", false
	}
	defer conn.Close()
	dialled()
	fmt.Fprintf(conn, "POST /v1/render/delegation HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n", addr)
	r := bufio.NewReader(conn)
	for range drips {
		if ctx.Err() != nil {
			return "", false
		}
		conn.Write([]byte(" ")) // an error shows in the read
		conn.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		line, err := r.ReadString('\n')
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() && line == "" {
			continue
		}
		if f := strings.Fields(line); len(f) > 1 && strings.HasPrefix(f[0], "HTTP/") {
			return f[1], true
		}
		return "closed", true
	}
	return "", false
}

// TestConnsPerClient: past --max-conns-per-client a client's connection
// is answered 429 in the server's error body and closed; a connection
// closed gives its place back.
func TestConnsPerClient(t *testing.T) {
	t.Parallel()
	lib, _ := promptsmith.Library()
	cfg := testHTTPConfig()
	cfg.MaxConnsPerClient = 2
	addr := serveOn(t, server.New(lib), cfg)
	var conns []net.Conn
	for range 2 {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		get(t, conn) // served, and kept alive: it holds a place
		conns = append(conns, conn)
	}
	third, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	third.SetDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(third), nil)
	if err != nil {
		t.Fatalf("no answer past the limit: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	if e := errorOf(t, body); resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" || e.Kind != "unavailable" ||
		!strings.Contains(strings.Join(e.Hints, " "), "--max-conns-per-client") {
		t.Errorf("past the limit: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	conns[0].Close()
	// The server sees the close when it reads it: poll; the deadline only
	// bounds a server that never gives the place back.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conn.Write([]byte("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"))
		status := readStatus(t, conn)
		conn.Close()
		if status == "HTTP/1.1 200 OK" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the place of a closed connection was not given back: %s", status)
		}
	}
}

// TestSlowBody: a body that arrives slower than --min-body-rate, or not
// within --read-timeout, is answered 408 naming the flag, and the
// connection closed; one sent at once is served.
func TestSlowBody(t *testing.T) {
	t.Parallel()
	lib, _ := promptsmith.Library()
	for _, c := range []struct {
		name        string
		rate        int64
		readTimeout time.Duration
		flag        string
	}{
		{"below --min-body-rate", 1024, 30 * time.Second, "--min-body-rate"},
		{"past --read-timeout", 0, 300 * time.Millisecond, "--read-timeout"},
		{"past --read-timeout, above the rate", 1, 300 * time.Millisecond, "--read-timeout"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := testHTTPConfig()
			cfg.MinBodyRate, cfg.BodyRateGrace, cfg.ReadTimeout = c.rate, 100*time.Millisecond, c.readTimeout
			addr := serveOn(t, server.New(lib), cfg)

			resp, err := http.Post("http://"+addr+"/v1/render/delegation", "application/json", strings.NewReader(input))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("a body sent at once: %d", resp.StatusCode)
			}

			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			fmt.Fprintf(conn, "POST /v1/render/delegation HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", addr, len(input))
			r := bufio.NewReader(conn)
			for i := 0; i < len(input); i++ { // a byte each 50 ms, 20 a second: the server ends it first
				if _, err := conn.Write([]byte{input[i]}); err != nil {
					break
				}
				conn.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
				if _, err := r.Peek(1); err == nil {
					break
				}
			}
			conn.SetReadDeadline(time.Now().Add(30 * time.Second))
			resp, err = http.ReadResponse(r, nil)
			if err != nil {
				t.Fatalf("no answer to a slow body: %v", err)
			}
			body, _ := io.ReadAll(resp.Body)
			if e := errorOf(t, body); resp.StatusCode != 408 || !resp.Close || !strings.Contains(e.Reason+strings.Join(e.Hints, " "), c.flag) {
				t.Errorf("%d close=%v %s", resp.StatusCode, resp.Close, body)
			}
		})
	}
}
