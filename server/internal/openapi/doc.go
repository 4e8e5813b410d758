// Package openapi builds the OpenAPI 3.1 document of the server's API
// from its routes: each route's Operation, declared beside its handler
// with the parts of parts.go, the schemas of the Go types the server
// answers (schemas.go, by reflection, so that the two cannot differ) and
// each variant's input schema in the form code generators read
// (inputs.go).
package openapi
