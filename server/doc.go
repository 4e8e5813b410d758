// Package server is promptsmith's HTTP API: the same renders as the CLI, for
// runtimes in other languages. Every response of the API is JSON; errors
// are {"error": {"kind", "reason", ...}}, one engine.Error (errors.go), and
// the OpenAPI 3.1 document at /v1/openapi.json describes every request and
// response.
//
// The runtime API, for programs that render prompts:
//
//	GET  /v1/variants                                 api_library.go  the variants, their descriptions and examples
//	GET  /v1/variants/{variant}/schema                api_library.go  the JSON Schema of a variant's input
//	GET  /v1/variants/{variant}/examples/{example}    api_library.go  an example input, as written
//	POST /v1/render/{variant}?max_tokens=N&tokens=ENC api_render.go   body: the input (JSON or YAML) → the Result; recorded first (audit.go)
//	POST /v1/check/{variant}                          api_render.go   body: the input → {variant, ok, checks, ids, provenance}
//	POST /v1/extract?depth=N&variant=V                api_render.go   body: a rendered prompt → {depth, region, text}
//	GET  /v1/audit/{key}, /v1/audit/{key}/chain       audit.go        a recorded prompt, and its delegation chain
//	GET  /v1/libraries                                labels.go       the labels served and their commits (render serve --repo)
//	POST /v1/reload                                   labels.go       read every label's ref again now (render serve --repo)
//	GET  /v1/version                                  api_library.go  the program's version, commit and the library's hash
//	GET  /v1/openapi.json                             api_library.go  the OpenAPI document (package openapi builds it)
//	GET  /metrics                                     api_library.go  Prometheus metrics (metrics.go, poolmetrics.go)
//	GET  /livez, /readyz, /healthz                    probes.go       the probes, outside the guard and the token
//
// The authoring tools, for the preview page an author keeps open:
//
//	GET  /                                            authoring.go         the preview page, built on the calls above
//	GET  /v1/variants/{variant}/lint                  authoring_lint.go    what render lint finds in a variant
//	GET  /v1/variants/{variant}/examples/{example}/golden  authoring_golden.go  the example's prompt beside its golden file (a working copy)
//	GET  /v1/events                                   authoring_events.go  server-sent events: the library swapped in or failed (StreamEvents)
//
// routes.go holds the route table: each endpoint's method, path, handler
// and OpenAPI operation (the xxxOp function beside its handler, made of
// the parts of package server/internal/openapi), and openapi.go hands
// the routes the server offers to package openapi, which builds the
// document by walking them (one operation per variant for render and
// check), with the input schemas in the form code generators read and
// the schemas of the Go types answered. tokens.go
// reads ?max_tokens and ?tokens into render options; slots.go holds the
// render slots every render, check, extraction, lint and golden render
// waits for (inSlot); body.go the request bodies and their byte budget;
// guard.go and access.go the Host, Origin, Content-Type, token and CORS
// checks; errors.go the one error path (status, writeError), respond.go
// the rest of writing answers; requestlog.go the request id and the one
// log line of each request; trace.go the OpenTelemetry spans (render
// serve's exporter is the command's); http.go, listener.go and rate.go
// the HTTP server around it all, which drains (Drain: /readyz 503)
// before it closes its listener.
//
// A Server bounds the renders that run at once (MaxRenders, MaxQueue),
// the time one may take (RenderTimeout) and the bytes of request bodies it
// holds (MaxBody in each render slot), checks an optional bearer token
// (Token), answers only to its own names (AllowedHosts) and answers
// browsers of the origins in CORSOrigins alone. HTTPServer and Serve put
// it on a listener with timeouts, a minimum body rate, a connection limit
// in all and for each client, and a graceful shutdown.
package server
