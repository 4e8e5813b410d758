package server

import (
	"maps"
	"reflect"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/labels"
	"github.com/promptsmith/promptsmith/server/internal/openapi"
)

// document builds the OpenAPI 3.1 document of the API as this server
// serves lib (package openapi builds it): the routes it offers, each with
// the operation written beside its handler.
func (s *Server) document(lib *engine.Library) ([]byte, error) {
	var routes []openapi.Route
	for _, rt := range s.routes {
		if rt.only != nil && !rt.only(s) {
			continue
		}
		routes = append(routes, openapi.Route{Method: rt.method, Path: rt.path, Op: rt.op})
	}
	names, descriptions := componentNames(), authoringDescriptions()
	auditNames, auditDescriptions := auditComponents()
	maps.Copy(names, authoringComponents())
	maps.Copy(names, auditNames)
	maps.Copy(descriptions, auditDescriptions)
	return openapi.Build(openapi.Config{
		Library:      lib,
		Token:        s.Token != "",
		Labels:       s.hasLabels(),
		Components:   names,
		Descriptions: descriptions,
		ErrorBody:    reflect.TypeFor[errorBody](),
	}, routes)
}

// componentNames names the server's own Go types, and the label
// registry's, that become components.schemas; package openapi names the
// engine's, auditComponents the audit store's.
func componentNames() map[reflect.Type]string {
	return map[reflect.Type]string{
		reflect.TypeFor[served]():        "Result",
		reflect.TypeFor[errorBody]():     "ErrorBody",
		reflect.TypeFor[checkFailure]():  "CheckFailure",
		reflect.TypeFor[checkReport]():   "CheckReport",
		reflect.TypeFor[extracted]():     "Extraction",
		reflect.TypeFor[variantInfo]():   "Variant",
		reflect.TypeFor[versionInfo]():   "Version",
		reflect.TypeFor[probe]():         "Probe",
		reflect.TypeFor[labels.Status](): "LabelStatus",
	}
}
