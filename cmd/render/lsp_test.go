package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLspOverStdio runs the binary's render lsp as an editor starts it:
// the protocol on stdin and stdout, nothing else on stdout, and a clean
// exit when the client says so.
func TestLspOverStdio(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := renderCommand(t, ctx, "lsp", "--templates", "../..")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(stdout)
	send := func(body string) {
		fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	read := func() map[string]any {
		length := 0
		for {
			line, err := out.ReadString('\n')
			if err != nil {
				t.Fatalf("stdout: %v (stderr %s)", err, stderr.String())
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			name, value, ok := strings.Cut(line, ": ")
			if !ok || name != "Content-Length" {
				t.Fatalf("stdout holds %q, not the protocol", line)
			}
			length, _ = strconv.Atoi(value)
		}
		body := make([]byte, length)
		io.ReadFull(out, body)
		var msg map[string]any
		if err := json.Unmarshal(body, &msg); err != nil {
			t.Fatalf("stdout holds %q: %v", body, err)
		}
		return msg
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`)
	res := read()
	caps, _ := res["result"].(map[string]any)["capabilities"].(map[string]any)
	if caps["completionProvider"] == nil || caps["hoverProvider"] != true || caps["definitionProvider"] != true {
		t.Errorf("capabilities %v", caps)
	}
	send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
	for msg := read(); msg["id"] != float64(2); msg = read() {
	}
	send(`{"jsonrpc":"2.0","method":"exit"}`)
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("render lsp: %v\n%s", err, stderr.String())
	}
}
