package server_test

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/promptsmith/promptsmith"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/testing/fixture"
	"github.com/promptsmith/promptsmith/server"
)

// apiErr is the error member of an answer.
type apiErr struct {
	Kind, Reason string
	Hints        []string
}

func errorOf(t *testing.T, body []byte) apiErr {
	t.Helper()
	var out struct{ Error apiErr }
	if err := json.Unmarshal(body, &out); err != nil || out.Error.Kind == "" || out.Error.Reason == "" {
		t.Errorf("not an error body: %v %s", err, body)
	}
	return out.Error
}

// TestHosts: a request whose Host is not a name of the server (DNS
// rebinding: a site whose name resolves to 127.0.0.1) is answered 421,
// naming --allow-host; loopback names and addresses, any port, and the
// names of AllowedHosts are served; /healthz answers any Host.
func TestHosts(t *testing.T) {
	t.Parallel()
	lib, _ := promptsmith.Library()
	for _, c := range []struct {
		host    string
		allowed []string
		path    string
		code    int
	}{
		{"evil.example", nil, "/v1/variants", 421},
		{"evil.example:8080", nil, "/v1/variants", 421},
		{"evil.example", nil, "/", 421},
		{"10.9.8.7:8080", nil, "/v1/variants", 421}, // not the address the server was reached on
		{"evil.example", nil, "/healthz", 200},
		{"localhost", nil, "/v1/variants", 200},
		{"LOCALHOST:9999", nil, "/v1/variants", 200},
		{"app.localhost", nil, "/v1/variants", 200},
		{"127.0.0.2:80", nil, "/v1/variants", 200},
		{"[::1]:8080", nil, "/v1/variants", 200},
		{"api.example", []string{"api.example"}, "/v1/variants", 200},
		{"API.Example.:443", []string{"api.example"}, "/v1/variants", 200},
		{"other.example", []string{"api.example"}, "/v1/variants", 421},
		{"anything.example", []string{"*"}, "/v1/variants", 200},
	} {
		srv := server.New(lib)
		srv.AllowedHosts = c.allowed
		ts := httptest.NewServer(srv)
		req, _ := http.NewRequest("GET", ts.URL+c.path, nil)
		req.Host = c.host
		resp, body := fixture.Send(t, ts.Client(), req)
		ts.Close()
		if resp.StatusCode != c.code {
			t.Errorf("Host %s %v %s: %d, want %d: %s", c.host, c.allowed, c.path, resp.StatusCode, c.code, body)
			continue
		}
		if c.code == 421 {
			if e := errorOf(t, body); e.Kind != "usage" || !strings.Contains(strings.Join(e.Hints, " "), "--allow-host") {
				t.Errorf("Host %s: %+v", c.host, e)
			}
		}
	}
}

// TestHostOfTheAddressReachedOn: a client that dialled the server's own
// address, not a loopback one, may name it as Host (a load balancer, a
// client of render serve --addr 0.0.0.0:PORT).
func TestHostOfTheAddressReachedOn(t *testing.T) {
	t.Parallel()
	var ip net.IP
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			ip = n.IP
			break
		}
	}
	if ip == nil {
		t.Skip("no address but loopback ones")
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), "0"))
	if err != nil {
		t.Skip(err)
	}
	lib, _ := promptsmith.Library()
	ts := httptest.NewUnstartedServer(server.New(lib))
	ts.Listener.Close()
	ts.Listener = ln
	ts.Start()
	defer ts.Close()
	resp, body := fixture.Send(t, ts.Client(), must(http.NewRequest("GET", ts.URL+"/v1/variants", nil)))
	if resp.StatusCode != 200 {
		t.Errorf("Host %s: %d %s", ln.Addr(), resp.StatusCode, body)
	}
}

// TestBrowserRequests: a page of another site may not call the server (a
// cross-site text/plain POST would render, and be recorded in the audit
// store): any Origin but the server's own and those of --cors-origin is
// answered 403. A render body must be JSON or YAML by its Content-Type:
// the types a page may send without a preflight are answered 415, and a
// body without one is taken only from a client that is not a browser page.
// Nothing refused is recorded.
func TestBrowserRequests(t *testing.T) {
	t.Parallel()
	srv := builtinServer()
	srv.CORSOrigins = []string{"https://app.example"}
	var recorded atomic.Int32
	srv.Audit = server.RecordHook(func(*engine.Variant, *engine.Result) error { recorded.Add(1); return nil })
	ts := httptest.NewServer(srv)
	defer ts.Close()
	own := ts.URL
	const jsonType, form = "application/json", "application/x-www-form-urlencoded"
	cases := []struct {
		method, path, origin, contentType string
		code                              int
		hint                              string
	}{
		{"POST", "/v1/render/delegation", "https://evil.example", "text/plain", 403, "--cors-origin https://evil.example"},
		{"POST", "/v1/render/delegation", "https://evil.example", jsonType, 403, "--cors-origin"},
		{"POST", "/v1/check/delegation", "https://evil.example", jsonType, 403, "--cors-origin"},
		{"POST", "/v1/extract", "https://evil.example", "text/plain", 403, "--cors-origin"},
		{"GET", "/v1/variants", "https://evil.example", "", 403, "--cors-origin"},
		{"POST", "/v1/render/delegation", "null", jsonType, 403, "--cors-origin"},
		{"POST", "/v1/render/delegation", own, jsonType, 200, ""},
		{"POST", "/v1/render/delegation", strings.Replace(own, "http:", "https:", 1), jsonType, 200, ""},
		{"POST", "/v1/render/delegation", own, "text/plain;charset=UTF-8", 415, "Content-Type: application/json"},
		{"POST", "/v1/render/delegation", own, "", 415, "Content-Type: application/json"},
		{"POST", "/v1/render/delegation", "https://app.example", jsonType, 200, ""},
		{"POST", "/v1/render/delegation", "https://app.example", "text/plain", 415, "Content-Type"},
		{"POST", "/v1/render/delegation", "", "", 200, ""},
		{"POST", "/v1/render/delegation", "", "text/plain", 415, "Content-Type"},
		{"POST", "/v1/render/delegation", "", "multipart/form-data; boundary=x", 415, "Content-Type"},
		{"POST", "/v1/render/delegation", "", form, 415, "curl"},
		{"POST", "/v1/render/delegation", "", "not a type;;", 415, "Content-Type"},
		{"POST", "/v1/render/delegation", "", "application/jsonx", 415, "Content-Type"},
		{"POST", "/v1/render/delegation", "", "application/json; charset=utf-8", 200, ""},
		{"POST", "/v1/render/delegation", "", "Application/JSON", 200, ""},
		{"POST", "/v1/render/delegation", "", "application/yaml", 200, ""},
		{"POST", "/v1/render/delegation", "", "application/x-yaml", 200, ""},
		{"POST", "/v1/render/delegation", "", "text/yaml", 200, ""},
		{"POST", "/v1/render/delegation", "", "text/x-yaml", 200, ""},
		{"POST", "/v1/render/delegation", "", "application/vnd.promptsmith.input+json", 200, ""},
		{"POST", "/v1/render/delegation", "", "application/vnd.promptsmith.input+yaml", 200, ""},
		{"POST", "/v1/check/delegation", "", "text/plain", 415, "Content-Type"},
		{"POST", "/v1/extract", "", "text/plain; charset=utf-8", 422, ""}, // read: the prompt has no markers
		{"POST", "/v1/extract", "", "text/markdown", 422, ""},
		{"POST", "/v1/extract", "", form, 415, "Content-Type: text/plain"},
		{"POST", "/v1/extract", "", jsonType, 415, "Content-Type: text/plain"},
	}
	renders := 0
	for _, c := range cases {
		body := input
		if c.path == "/v1/extract" {
			body = "# no markers\n"
		}
		req, _ := http.NewRequest(c.method, ts.URL+c.path, strings.NewReader(body))
		if c.method == "GET" {
			req, _ = http.NewRequest(c.method, ts.URL+c.path, nil)
		}
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		if c.contentType != "" {
			req.Header.Set("Content-Type", c.contentType)
		}
		resp, data := fixture.Send(t, ts.Client(), req)
		if resp.StatusCode != c.code {
			t.Errorf("%s %s Origin %q Content-Type %q: %d, want %d: %s", c.method, c.path, c.origin, c.contentType, resp.StatusCode, c.code, data)
			continue
		}
		if c.code == 200 && c.path == "/v1/render/delegation" {
			renders++
		}
		if c.hint != "" {
			e := errorOf(t, data)
			if e.Kind != "usage" || !strings.Contains(strings.Join(e.Hints, " "), c.hint) {
				t.Errorf("%s %s Origin %q Content-Type %q: %+v, want a hint with %q", c.method, c.path, c.origin, c.contentType, e, c.hint)
			}
			if resp.Header.Get("Access-Control-Allow-Origin") != "" && c.code == 403 {
				t.Errorf("a refused origin may read the answer: %v", resp.Header)
			}
		}
	}
	if int(recorded.Load()) != renders {
		t.Errorf("%d renders recorded, want the %d that were served", recorded.Load(), renders)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
