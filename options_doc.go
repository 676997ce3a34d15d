package main

import (
	"strings"
)

// --help's list of flags and docs/flags.md's table, both made from
// flagRows (flags.go); TestFlagsDocumented fails when docs/flags.md does
// not hold the table made from them, TestHelpDocumented when --help
// changes unseen.

// helpWords is the row's --help words, its default and variable filled in.
func (r *flagRow) helpWords() string {
	def := r.def
	if def == "" {
		def = strings.ReplaceAll(r.defDoc, "`", "")
	}
	return strings.NewReplacer("{default}", def, "{env}", r.envName()).Replace(r.help)
}

// flagList is --help's list of flags: each flag's usage, then its words
// wrapped beside it.
func flagList() string {
	const col, width = 26, 98
	var b strings.Builder
	for _, f := range flagRows {
		line := "  " + f.usage()
		if len(line) >= col {
			line += " "
		}
		for _, w := range strings.Fields(f.helpWords()) {
			switch {
			case len(line) < col:
				line += strings.Repeat(" ", col-len(line)) + w
			case len(line)+1+len(w) > width:
				b.WriteString(line + "\n")
				line = strings.Repeat(" ", col) + w
			default:
				line += " " + w
			}
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// flagTable is docs/flags.md's table, made from flagRows.
func flagTable() string {
	var b strings.Builder
	b.WriteString("| flag | environment | default | meaning |\n|---|---|---|---|\n")
	for _, f := range flagRows {
		name := f.docName
		if name == "" {
			name = "`" + strings.ReplaceAll(f.usage(), "|", `\|`) + "`"
		}
		env := ""
		if f.env {
			env = "`" + f.envName() + "`"
		}
		def := f.defDoc
		switch {
		case def != "":
		case f.def != "":
			def = "`" + f.def + "`"
		case f.boolean:
			def = "off"
		}
		b.WriteString("| " + name + " | " + env + " | " + def + " | " + f.doc + " |\n")
	}
	return b.String()
}
