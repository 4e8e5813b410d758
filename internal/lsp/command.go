package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/promptsmith/promptsmith/engine"
)

// commandRender renders an example of the variant a document belongs to,
// from the documents as typed. Its arguments are the document's URI and,
// optionally, the example's name (the first example when absent); it
// returns a Rendered.
const commandRender = "promptsmith.renderExample"

// Rendered is what commandRender returns: the prompt, for an editor to
// show beside the template.
type Rendered struct {
	Variant string `json:"variant"`
	Example string `json:"example"`
	Text    string `json:"text"`
}

// codeLensExamples is how many examples a template's code lens offers to
// render.
const codeLensExamples = 5

// codeLens offers, at the top of a template, to render its variant's
// examples.
func (s *Server) codeLens(ctx context.Context, uri protocol.DocumentURI) ([]protocol.CodeLens, error) {
	p, _, sn, ok := s.document(uri)
	out := []protocol.CodeLens{}
	if !ok {
		return out, nil
	}
	kind, variant := classify(p)
	if kind != kindTemplate || sn.err != nil {
		return out, nil
	}
	v, err := sn.lib.Variant(variant)
	if err != nil {
		return out, nil
	}
	for i, ex := range v.Examples() {
		if i == codeLensExamples {
			break
		}
		out = append(out, protocol.CodeLens{
			Range: protocol.Range{},
			Command: &protocol.Command{Title: "render " + ex, Command: commandRender,
				Arguments: []any{string(uri), ex}},
		})
	}
	return out, ctx.Err()
}

func (s *Server) executeCommand(ctx context.Context, p *protocol.ExecuteCommandParams) (any, error) {
	if p.Command != commandRender {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command %q; the server has %s", p.Command, commandRender)
	}
	var uri, example string
	if len(p.Arguments) > 0 {
		uri, _ = p.Arguments[0].(string)
	}
	if len(p.Arguments) > 1 {
		example, _ = p.Arguments[1].(string)
	}
	if uri == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s takes a document URI and an example's name", commandRender)
	}
	path, _, sn, ok := s.document(protocol.DocumentURI(uri))
	if !ok {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s is not a file of the library", uri)
	}
	_, variant := classify(path)
	if variant == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s belongs to no variant", uri)
	}
	if sn.err != nil {
		return nil, failed(sn.err)
	}
	v, err := sn.lib.Variant(variant)
	if err != nil {
		return nil, failed(err)
	}
	if example == "" {
		if len(v.Examples()) == 0 {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "variant %s has no examples", variant)
		}
		example = v.Examples()[0]
	}
	in, err := v.Example(example)
	if err != nil {
		return nil, failed(err)
	}
	res, err := v.Render(ctx, in)
	if err != nil && (res == nil || ctx.Err() != nil) {
		return nil, failed(err)
	}
	return Rendered{Variant: variant, Example: example, Text: res.Text}, nil
}

// failed is an LSP error (RequestFailed) carrying the engine's error,
// with its position and hints, as its data.
func failed(err error) error {
	e := engine.AsError(err)
	data, _ := json.Marshal(e)
	raw := json.RawMessage(data)
	return &jsonrpc2.Error{Code: jsonrpc2.Code(-32803), Message: fmt.Sprint(e.Error()), Data: &raw}
}
