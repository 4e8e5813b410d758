package server

import (
	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/engine/input"
)

// originOf is what the audit store records of where a prompt came from:
// the label and commit that served it, and with AuditInputs its input and
// budget, for render audit replay.
func (s *Server) originOf(src source, body []byte, ask tokenAsk) audit.Origin {
	o := audit.Origin{Label: src.label, Commit: src.commit}
	if !s.AuditInputs || s.Audit == nil {
		return o
	}
	o.Input = canonicalInput(body)
	if ask.max > 0 {
		o.MaxTokens, o.Tokens = ask.max, ask.enc
	}
	return o
}

// canonicalInput is a render's input as the audit store keeps it: the
// values it decodes to, as JSON with each object's keys in input order
// (templates range over them in that order), so that the same input sent
// as JSON or YAML, spaced any way, is stored once. The body rendered
// already, so it decodes; nil if it somehow does not, and none is kept.
func canonicalInput(body []byte) []byte {
	doc, err := input.Decode(input.Input{Name: "body", Data: body}, nil)
	if err != nil {
		return nil
	}
	defer doc.Release()
	return input.AppendJSON(nil, doc.Root, doc.Order(), false)
}
