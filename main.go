// Command fsmcp serves a developer's files to an AI agent over MCP.
package main

func main() {}
