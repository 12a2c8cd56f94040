// hclcheck reads an HCL file on stdin and checks it with HashiCorp's own HCL (what Terraform uses):
// it must parse with hclsyntax.ParseConfig with no diagnostics, and hclwrite.Format must leave it unchanged.
// Prints one JSON object: {"diagnostics": [...], "formatted": "<hclwrite.Format output>", "unchanged": bool}.
// Built offline by test/export/hcl-hashicorp.test.ts with GOPATH=/usr/share/gocode GO111MODULE=off (Debian's
// golang-github-hashicorp-hcl-v2-dev).
package main

import (
	"encoding/json"
	"io"
	"os"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
)

type result struct {
	Diagnostics []string `json:"diagnostics"`
	Formatted   string   `json:"formatted"`
	Unchanged   bool     `json:"unchanged"`
}

func main() {
	src, err := io.ReadAll(os.Stdin)
	if err != nil {
		os.Exit(2)
	}
	_, diags := hclsyntax.ParseConfig(src, "export.tf", hcl.Pos{Line: 1, Column: 1})
	out := result{Diagnostics: []string{}}
	for _, d := range diags {
		out.Diagnostics = append(out.Diagnostics, d.Error())
	}
	formatted := hclwrite.Format(src)
	out.Formatted = string(formatted)
	out.Unchanged = string(formatted) == string(src)
	json.NewEncoder(os.Stdout).Encode(out)
}
