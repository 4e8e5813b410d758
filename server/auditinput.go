package server

import (
	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/engine"
)

// originOf is what the audit store records of where a prompt came from:
// the label and commit that served it, and with AuditInputs its input and
// budget, for render audit replay.
func (s *Server) originOf(src source, body []byte, ask tokenAsk) audit.Origin {
	o := audit.Origin{Label: src.label, Commit: src.commit}
	if !s.AuditInputs || s.Audit == nil {
		return o
	}
	o.Input = audit.CanonicalInput(engine.Input{Name: "body", Data: body})
	if ask.max > 0 {
		o.MaxTokens, o.Tokens = ask.max, ask.enc
	}
	return o
}
