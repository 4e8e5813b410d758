package server

import "github.com/promptsmith/promptsmith/engine"

// Library is the library the server renders with now.
func (s *Server) Library() *engine.Library { return s.lib() }
