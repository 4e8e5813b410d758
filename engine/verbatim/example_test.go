package verbatim_test

import (
	"fmt"

	"github.com/promptsmith/promptsmith/engine/verbatim"
)

func ExampleMarkers_Extract() {
	m := verbatim.Markers{Start: "<!-- PARENT PROMPT START -->", End: "<!-- PARENT PROMPT END -->"}
	subagent := "# Delegation Overview\n\n## Parent Prompt\n\n" +
		"<!-- PARENT PROMPT START -->\n# Root agent\n\nBe careful.\n<!-- PARENT PROMPT END -->\n\n## Delegation Details\n"
	parent, err := m.Extract(subagent, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(parent)
	_, err = m.Extract(subagent, 2)
	fmt.Println(err)
	// Output:
	// # Root agent
	//
	// Be careful.
	// level 2: no "<!-- PARENT PROMPT START -->" marker line: the prompt at this level holds no embedded prompt
	//   hint: the chain is 1 level(s) deep; ask for a smaller depth
}
