package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// maxMessage is the largest message the server reads: far above a 10 MB
// document in a didOpen, escaped, yet bounded, so that a wrong length
// cannot make the server allocate without end.
const maxMessage = 128 << 20

// stream frames JSON-RPC messages with LSP's Content-Length headers, as
// jsonrpc2's own stream does, but survives what an editor (or anything
// else on the pipe) may send wrong: a message that is not JSON, not JSON-RPC,
// or too long is answered with a parse error (id null, as JSON-RPC says)
// and skipped, and the next one is read. jsonrpc2's stream would end the
// connection.
type stream struct {
	in  *bufio.Reader
	out io.Writer
	c   io.Closer
	log *slog.Logger
	mu  sync.Mutex // one message at a time on out
}

func newStream(r io.Reader, w io.Writer, c io.Closer, log *slog.Logger) *stream {
	return &stream{in: bufio.NewReaderSize(r, 64<<10), out: w, c: c, log: log}
}

// Read returns the next well-formed message, answering those that are not.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		data, n, err := s.frame()
		if err != nil {
			return nil, n, err
		}
		if data == nil {
			continue // a frame without a body was answered already
		}
		msg, err := jsonrpc2.DecodeMessage(data)
		if err == nil {
			return msg, n, nil
		}
		code := jsonrpc2.ParseError
		if errors.Is(err, jsonrpc2.ErrInvalidRequest) {
			code = jsonrpc2.InvalidRequest
		}
		s.log.Warn("malformed message", "err", err, "bytes", len(data))
		s.answerMalformed(code, err.Error())
	}
}

// frame reads one message's headers and body. A header section without a
// usable Content-Length is answered and skipped (nil data); only the end
// of the input, or a failure to read it, is an error.
func (s *stream) frame() ([]byte, int64, error) {
	var total, length int64 = 0, -1
	bad, headers := "", 0
	for {
		line, n, err := s.line()
		total += n
		if err != nil {
			return nil, total, err
		}
		if line == "" {
			if headers == 0 {
				continue // blank lines between messages
			}
			break
		}
		headers++
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			bad = fmt.Sprintf("invalid header line %q", clip(line))
			continue
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			l, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || l < 0 {
				bad = fmt.Sprintf("invalid Content-Length %q", clip(value))
				continue
			}
			length = l
		}
	}
	switch {
	case length < 0:
		if bad == "" {
			bad = "missing Content-Length header"
		}
		s.log.Warn("malformed header", "reason", bad)
		s.answerMalformed(jsonrpc2.ParseError, bad)
		return nil, total, nil
	case length > maxMessage:
		m, err := io.CopyN(io.Discard, s.in, length)
		total += m
		if err != nil {
			return nil, total, err
		}
		s.answerMalformed(jsonrpc2.InvalidRequest, fmt.Sprintf("message of %d bytes is longer than the %d the server reads", length, maxMessage))
		return nil, total, nil
	}
	// The buffer grows as the bytes come, from at most 64 KiB: a header
	// that announces 128 MiB costs nothing until they arrive.
	buf := bytes.NewBuffer(make([]byte, 0, min(length, 64<<10)))
	m, err := io.CopyN(buf, s.in, length)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF // as io.ReadFull says a message cut short
	}
	return buf.Bytes(), total + m, err
}

// line reads a header line without its line break. A line longer than the
// reader's buffer is read whole and kept only in part: headers are short.
func (s *stream) line() (string, int64, error) {
	var b []byte
	var total int64
	for {
		part, err := s.in.ReadSlice('\n')
		total += int64(len(part))
		if len(b) < 1024 {
			b = append(b, part[:min(len(part), 1024-len(b))]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return "", total, err
		}
		return string(bytes.TrimRight(b, "\r\n")), total, nil
	}
}

// answerMalformed replies to a message that could not be read, with id
// null as JSON-RPC asks when the request's id cannot be known.
func (s *stream) answerMalformed(code jsonrpc2.Code, message string) {
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": code, "message": message},
	})
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := fmt.Fprintf(s.out, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		s.log.Warn("cannot answer a malformed message", "err", err)
	}
}

// Write sends one message.
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return 0, fmt.Errorf("marshaling message: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := fmt.Fprintf(s.out, "Content-Length: %d\r\n\r\n", len(data))
	if err != nil {
		return int64(n), err
	}
	m, err := s.out.Write(data)
	return int64(n + m), err
}

// Close closes what the server reads from and writes to.
func (s *stream) Close() error {
	if s.c == nil {
		return nil
	}
	return s.c.Close()
}

// clip keeps what a log or an error quotes of bad input short.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
