// Command client renders every example of every variant through the Go
// client oapi-codegen generated from the server's OpenAPI document
// (client.gen.go, written by .ci/clients): each through its variant's own
// typed operation, the example decoded into the generated input type. It
// checks that each answers 200 with the prompt the server renders from the
// example as written, and that the example with its defaulted fields left
// out (every field whose value is the x-default the document gives it)
// renders the same prompt through the same operation; it exits 1 naming
// any that does not.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:8080", "the server")
	token := flag.String("token", "", "the bearer token")
	flag.Parse()
	if err := run(*url, *token); err != nil {
		fmt.Fprintln(os.Stderr, "client (Go):", err)
		os.Exit(1)
	}
}

func run(url, token string) error {
	ctx := context.Background()
	auth := WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+token)
		return nil
	})
	c, err := NewClientWithResponses(url, auth)
	if err != nil {
		return err
	}
	list, err := c.GetV1VariantsWithResponse(ctx)
	if err != nil {
		return err
	}
	if list.JSON200 == nil {
		return fmt.Errorf("GET /v1/variants answered %d", list.StatusCode())
	}
	doc, err := document(url, token)
	if err != nil {
		return err
	}
	n, same := 0, 0
	for _, v := range *list.JSON200 {
		for _, ex := range v.Examples {
			identical, err := renderExample(ctx, c, doc, url, token, v.Name, ex)
			if err != nil {
				return fmt.Errorf("%s example %s: %w", v.Name, ex, err)
			}
			n++
			if identical {
				same++
			} else {
				fmt.Printf("client (Go): %s example %s: the prompt differs from the example's as written "+
					"(a free-form object's keys, which a Go map sorts)\n", v.Name, ex)
			}
		}
	}
	fmt.Printf("client (Go): rendered %d examples of %d variants through their typed operations, as written and with their defaults left out; %d byte for byte as written\n",
		n, len(*list.JSON200), same)
	return nil
}

// renderExample renders one example twice, through the typed operation
// and as written, and reports whether the prompts are the same: they
// differ only where the input has an object of any keys whose order the
// prompt shows, since the generated type holds it in a Go map.
func renderExample(ctx context.Context, c *ClientWithResponses, doc map[string]any, url, token, variant, example string) (bool, error) {
	raw, err := c.GetV1VariantsVariantExamplesExampleWithResponse(ctx, GetV1VariantsVariantExamplesExampleParamsVariant(variant), example)
	if err != nil {
		return false, err
	}
	if raw.StatusCode() != 200 {
		return false, fmt.Errorf("fetching it answered %d", raw.StatusCode())
	}
	data, err := asJSON(raw.Body)
	if err != nil {
		return false, err
	}
	typed, err := renderTyped(ctx, c, variant, data)
	if err != nil {
		return false, err
	}
	want, err := renderAsWritten(url, token, variant, raw.Body)
	if err != nil {
		return false, err
	}
	if typed.Text == "" || !allPassed(typed.Checks) {
		return false, fmt.Errorf("the typed render has no prompt or failed a check")
	}
	bareData, err := bareJSON(doc, variant, data)
	if err != nil {
		return false, err
	}
	bare, err := renderTyped(ctx, c, variant, bareData)
	if err != nil {
		return false, fmt.Errorf("with its defaults left out: %w", err)
	}
	if bare.Text != typed.Text {
		return false, fmt.Errorf("with its defaults left out, the typed render differs from the example's")
	}
	return typed.Text == want, nil
}

func allPassed(checks []CheckResult) bool {
	for _, c := range checks {
		if !c.Ok {
			return false
		}
	}
	return true
}

// renderTyped decodes the example into the variant's generated input type
// and renders it with the variant's own operation.
func renderTyped(ctx context.Context, c *ClientWithResponses, variant string, data []byte) (*Result, error) {
	switch variant {
	case "delegation":
		return renderWith(data, operation(ctx, c.RenderDelegationWithResponse))
	case "space":
		return renderWith(data, operation(ctx, c.RenderSpaceWithResponse))
	case "squad":
		return renderWith(data, operation(ctx, c.RenderSquadWithResponse))
	case "swarm":
		return renderWith(data, operation(ctx, c.RenderSwarmWithResponse))
	case "workspace":
		return renderWith(data, operation(ctx, c.RenderWorkspaceWithResponse))
	}
	return nil, fmt.Errorf("the generated client has no operation for variant %s: regenerate it", variant)
}

// answer is what a variant's render operation answers: its status, and
// its body at 200 (nil for another status), which the generated response
// types hold in a field of their own, the methods below give it.
type answer[Body any] interface {
	StatusCode() int
	json200() *Body
}

func (r *RenderDelegationResponse) json200() *RenderDelegation200JSONResponseBody { return r.JSON200 }
func (r *RenderSpaceResponse) json200() *RenderSpace200JSONResponseBody           { return r.JSON200 }
func (r *RenderSquadResponse) json200() *RenderSquad200JSONResponseBody           { return r.JSON200 }
func (r *RenderSwarmResponse) json200() *RenderSwarm200JSONResponseBody           { return r.JSON200 }
func (r *RenderWorkspaceResponse) json200() *RenderWorkspace200JSONResponseBody   { return r.JSON200 }

// operation is a variant's generated render operation as renderWith calls
// it: with no parameters, answering the Result of a 200 and the status.
func operation[Params, In any, Body interface{ AsResult() (Result, error) }, Answer answer[Body]](ctx context.Context, op func(context.Context, *Params, In, ...RequestEditorFn) (Answer, error)) func(In) (*Result, int, error) {
	return func(in In) (*Result, int, error) {
		r, err := op(ctx, nil, in)
		if err != nil {
			return nil, 0, err
		}
		return result(r.json200(), r.StatusCode())
	}
}

// result is the Result of a render's 200 answer, whose body is one of
// the forms ?format= picks (Result by default); nil for another status.
func result[Body interface{ AsResult() (Result, error) }](body *Body, code int) (*Result, int, error) {
	if body == nil {
		return nil, code, nil
	}
	res, err := (*body).AsResult()
	if err != nil {
		return nil, code, fmt.Errorf("the answer is not a Result: %w", err)
	}
	return &res, code, nil
}

// renderWith decodes data into In and renders it with call.
func renderWith[In any](data []byte, call func(In) (*Result, int, error)) (*Result, error) {
	var in In
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("decoding it into the generated type: %w", err)
	}
	res, code, err := call(in)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, fmt.Errorf("the typed render answered %d", code)
	}
	return res, nil
}

// renderAsWritten posts the example's bytes as they are.
func renderAsWritten(url, token, variant string, body []byte) (string, error) {
	req, _ := http.NewRequest("POST", url+"/v1/render/"+variant, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/yaml")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var res Result
	if resp.StatusCode != 200 || json.Unmarshal(data, &res) != nil {
		return "", fmt.Errorf("the render as written answered %d: %.300s", resp.StatusCode, data)
	}
	return res.Text, nil
}

// asJSON turns an example, YAML or JSON, into JSON.
func asJSON(example []byte) ([]byte, error) {
	var v any
	if err := yaml.Unmarshal(example, &v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// document is the server's OpenAPI document, decoded.
func document(url, token string) (map[string]any, error) {
	req, _ := http.NewRequest("GET", url+"/v1/openapi.json", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var doc map[string]any
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("GET /v1/openapi.json answered %d", resp.StatusCode)
	}
	return doc, json.NewDecoder(resp.Body).Decode(&doc)
}

// bareJSON is an example (JSON) without the fields whose value is their
// default, at every level, by the variant's input schema in doc.
func bareJSON(doc map[string]any, variant string, data []byte) ([]byte, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	schemas, _ := dig(doc, "components", "schemas").(map[string]any)
	input, ok := schemas[variant+"Input"]
	if !ok {
		return nil, fmt.Errorf("the document has no components.schemas.%sInput", variant)
	}
	return json.Marshal(bare(v, input, schemas))
}

// dig walks m by keys.
func dig(m any, keys ...string) any {
	for _, k := range keys {
		mm, _ := m.(map[string]any)
		m = mm[k]
	}
	return m
}

// resolve follows a reference to its component.
func resolve(s any, schemas map[string]any) map[string]any {
	m, _ := s.(map[string]any)
	for m != nil {
		ref, ok := m["$ref"].(string)
		if !ok {
			break
		}
		m, _ = schemas[strings.TrimPrefix(ref, "#/components/schemas/")].(map[string]any)
	}
	return m
}

// properties is every property an object schema names, its allOf
// members' included.
func properties(s any, schemas map[string]any) map[string]any {
	m := resolve(s, schemas)
	out := map[string]any{}
	if p, ok := m["properties"].(map[string]any); ok {
		maps.Copy(out, p)
	}
	all, _ := m["allOf"].([]any)
	for _, member := range all {
		maps.Copy(out, properties(member, schemas))
	}
	return out
}

// bare is v without the fields whose value is their x-default.
func bare(v, s any, schemas map[string]any) any {
	m := resolve(s, schemas)
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = bare(e, m["items"], schemas)
		}
		return out
	case map[string]any:
		props := properties(m, schemas)
		out := map[string]any{}
		for k, e := range x {
			p := resolve(props[k], schemas)
			if d, ok := p["x-default"]; ok && reflect.DeepEqual(d, e) {
				continue
			}
			sub := props[k]
			if sub == nil {
				sub = m["additionalProperties"]
			}
			out[k] = bare(e, sub, schemas)
		}
		return out
	}
	return v
}
