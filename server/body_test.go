package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
)

// bodyOf is a delegation input of exactly n bytes: JSON padded with
// spaces, which it ignores.
func bodyOf(t *testing.T, n int) []byte {
	t.Helper()
	in := []byte(`{"parent": {"agent_id": "a", "prompt_key": "k", "prompt": "# P\n"},
 "delegation": {"reason": "r", "expected_completion": "e", "task_summary": "t", "required_outputs": ["x"]}}`)
	if len(in) > n {
		t.Fatalf("no input fits in %d bytes", n)
	}
	return append(in, bytes.Repeat([]byte(" "), n-len(in))...)
}

// bodyCounter counts the bodies a server is reading or holding, through
// bodyHook, and the most it ever had at once.
type bodyCounter struct {
	mu         sync.Mutex
	now, most  int
	everCalled bool
}

func (c *bodyCounter) hook(delta int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now += delta
	c.most = max(c.most, c.now)
	c.everCalled = true
}

func (c *bodyCounter) get() (now, most int, called bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now, c.most, c.everCalled
}

// gaugeOf reads a gauge of the server's registry.
func gaugeOf(t *testing.T, s *Server, name string) float64 {
	t.Helper()
	families, err := s.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name {
			return f.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// awaitGauge polls until a gauge reaches want; the deadline only bounds a
// hung server.
func awaitGauge(t *testing.T, s *Server, name string, want float64) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); gaugeOf(t, s, name) != want; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s is %v, never reached %v", name, gaugeOf(t, s, name), want)
		}
	}
}

// TestBodiesReadOnlyWithinTheBudget: many clients send large bodies at
// once, with a Content-Length and without (chunked); the server reads a
// body only once the budget (2 render slots × MaxBody) holds room for it,
// so that however many clients send, at most 2 bodies are read or held at
// any moment. The renders hold their body in a Record hook until the test
// has seen every other client wait; then every request is answered 200:
// waiting lost none.
func TestBodiesReadOnlyWithinTheBudget(t *testing.T) {
	t.Parallel()
	lib, _ := promptsmith.Library()
	const size, clients = 256 << 10, 40
	body := bodyOf(t, size)
	for _, chunked := range []bool{false, true} {
		t.Run(fmt.Sprintf("chunked=%v", chunked), func(t *testing.T) {
			s := New(lib)
			s.MaxRenders, s.MaxQueue, s.MaxBody, s.RenderTimeout = 2, clients, size, 5*time.Minute
			var count bodyCounter
			s.bodyHook = count.hook
			release := make(chan struct{})
			s.Audit = RecordHook(func(*engine.Variant, *engine.Result) error { <-release; return nil })
			ts := httptest.NewServer(s)
			defer ts.Close()

			codes := make(chan int, clients)
			for range clients {
				go func() {
					var r io.Reader = bytes.NewReader(body)
					if chunked {
						r = io.MultiReader(r) // no length known: sent chunked
					}
					req, _ := http.NewRequest("POST", ts.URL+"/v1/render/delegation", r)
					req.Header.Set("Content-Type", "application/json")
					resp, err := ts.Client().Do(req)
					if err != nil {
						t.Error(err)
						codes <- 0
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					codes <- resp.StatusCode
				}()
			}
			awaitGauge(t, s, "promptsmith_request_bodies_waiting", clients-2)
			if now, most, _ := count.get(); now != 2 || most != 2 {
				t.Errorf("with %d clients waiting, %d bodies are read or held (at most %d at once), want 2", clients-2, now, most)
			}
			if held := gaugeOf(t, s, "promptsmith_request_body_bytes"); held != 2*size {
				t.Errorf("%v body bytes held, want %d", held, 2*size)
			}
			close(release)
			for range clients {
				if code := <-codes; code != 200 {
					t.Errorf("a client was answered %d", code)
				}
			}
			if now, most, _ := count.get(); now != 0 || most != 2 {
				t.Errorf("%d bodies still held, at most %d at once, want 0 and 2", now, most)
			}
			if held := gaugeOf(t, s, "promptsmith_request_body_bytes"); held != 0 {
				t.Errorf("%v body bytes still held", held)
			}
		})
	}
}

// TestBodyBudgetQueue: with the budget taken and its one queue place too,
// the next request is answered 503 with Retry-After at once, before its
// body is read, and counted as rejected.
func TestBodyBudgetQueue(t *testing.T) {
	t.Parallel()
	lib, _ := promptsmith.Library()
	const size = 64 << 10
	body := bodyOf(t, size)
	s := New(lib)
	s.MaxRenders, s.MaxQueue, s.MaxBody = 1, 1, size
	release := make(chan struct{})
	s.Audit = RecordHook(func(*engine.Variant, *engine.Result) error { <-release; return nil })
	ts := httptest.NewServer(s)
	defer ts.Close()
	post := func() (*http.Response, []byte) {
		resp, err := ts.Client().Post(ts.URL+"/v1/render/delegation", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Error(err)
			return &http.Response{}, nil
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp, data
	}
	var wg sync.WaitGroup
	wg.Go(func() { post() }) // renders, holding the whole budget
	awaitGauge(t, s, "promptsmith_request_body_bytes", size)
	wg.Go(func() { post() }) // waits for room
	awaitGauge(t, s, "promptsmith_request_bodies_waiting", 1)
	resp, data := post()
	var e struct{ Error struct{ Kind, Reason string } }
	json.Unmarshal(data, &e)
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || e.Error.Kind != "unavailable" || !strings.Contains(e.Error.Reason, "body") {
		t.Errorf("a body past the budget's queue: %d %v %s", resp.StatusCode, resp.Header, data)
	}
	close(release)
	wg.Wait()
	families, _ := s.Registry().Gather()
	for _, f := range families {
		if f.GetName() != "promptsmith_renders_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			if m.GetLabel()[0].GetValue() == "rejected" && m.GetCounter().GetValue() != 1 {
				t.Errorf("rejected renders: %v", m.GetCounter().GetValue())
			}
		}
	}
}

// TestRefusedBodiesAreNotRead: a request refused before its body is read
// (no token, another site's origin or Host, a type the endpoint does not
// read, a Content-Length over MaxBody, a path or variant it does not have)
// is answered at once, with Connection: close, and its connection closed,
// though the client sent one byte of the body it declared: neither the
// handler nor net/http waits for the rest. Nothing is read into the body
// budget.
func TestRefusedBodiesAreNotRead(t *testing.T) {
	t.Parallel()
	lib, _ := promptsmith.Library()
	const maxBody = 1 << 20
	for _, c := range []struct {
		name, token, path, header string
		length                    int
		code                      int
	}{
		{"no token", "tok", "/v1/render/delegation", "", 100_000, 401},
		{"a wrong token", "tok", "/v1/render/delegation", "Authorization: Bearer nope\r\n", 100_000, 401},
		{"a small body and no token", "tok", "/v1/render/delegation", "", 1000, 401},
		{"another site's page", "", "/v1/render/delegation", "Origin: https://evil.example\r\n", 100_000, 403},
		{"another site's name", "", "/v1/render/delegation", "Host: evil.example\r\n", 100_000, 421},
		{"text/plain", "", "/v1/render/delegation", "Content-Type: text/plain\r\n", 100_000, 415},
		{"over --max-body", "", "/v1/render/delegation", "", maxBody + 1, 413},
		{"over --max-body, extract", "", "/v1/extract", "Content-Type: text/plain\r\n", maxBody + 1, 413},
		{"an unknown variant", "", "/v1/render/nope", "", 100_000, 404},
		{"a bad parameter", "", "/v1/render/delegation?max_tokens=x", "", 100_000, 400},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := New(lib)
			s.Token, s.MaxBody = c.token, maxBody
			var count bodyCounter
			s.bodyHook = count.hook
			ts := httptest.NewServer(s)
			defer ts.Close()
			conn, err := net.Dial("tcp", ts.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(30 * time.Second)) // bounds a server that waits for the body
			header := c.header
			if !strings.Contains(header, "Host:") {
				header += "Host: " + ts.Listener.Addr().String() + "\r\n"
			}
			if !strings.Contains(header, "Content-Type:") {
				header += "Content-Type: application/json\r\n"
			}
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\n%sContent-Length: %d\r\n\r\n{", c.path, header, c.length)
			r := bufio.NewReader(conn)
			resp, err := http.ReadResponse(r, nil)
			if err != nil {
				t.Fatalf("no answer: %v", err)
			}
			data, _ := io.ReadAll(resp.Body)
			var e struct{ Error struct{ Kind, Reason string } }
			if resp.StatusCode != c.code || json.Unmarshal(data, &e) != nil || e.Error.Reason == "" {
				t.Errorf("%d, want %d: %s", resp.StatusCode, c.code, data)
			}
			if !resp.Close {
				t.Errorf("the answer keeps the connection: %v", resp.Header)
			}
			if n, err := r.Read(make([]byte, 1)); n != 0 || err == nil {
				t.Errorf("the connection was not closed: %d %v", n, err)
			} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Errorf("the connection is still open, waiting for the body")
			}
			if _, _, called := count.get(); called {
				t.Error("the body was read into the budget")
			}
		})
	}
}

// slowBody is a request body that sends its first byte, then the rest
// once pause has passed: an upload slower than the render's bound but
// within --read-timeout and --min-body-rate.
type slowBody struct {
	data  []byte
	pause time.Duration
	sent  bool
}

func (b *slowBody) Read(p []byte) (int, error) {
	if len(b.data) == 0 {
		return 0, io.EOF
	}
	n := 1
	if b.sent {
		time.Sleep(b.pause)
		n = copy(p, b.data)
	} else {
		p[0] = b.data[0]
	}
	b.sent = true
	b.data = b.data[n:]
	return n, nil
}

// TestSlowUploadIsNotTheRendersTime: the render's bound counts its wait
// for room to hold the body, not the upload itself, which --read-timeout
// and --min-body-rate bound: a body that takes longer to arrive than
// --render-timeout is rendered.
func TestSlowUploadIsNotTheRendersTime(t *testing.T) {
	t.Parallel()
	s := New(fixture.Small(t))
	s.RenderTimeout = time.Second
	ts := httptest.NewServer(s)
	defer ts.Close()
	body := []byte(`{"title": "Groceries", "body": "Milk and bread."}`)
	req, _ := http.NewRequest("POST", ts.URL+"/v1/render/note", &slowBody{data: body, pause: 1200 * time.Millisecond})
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = int64(len(body))
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("a body slower than --render-timeout: %d %s", resp.StatusCode, data)
	}
}
