// Command gen writes the API client (client.gen.go in the working
// directory) from the document the server serves, with oapi-codegen. Run
// it through go generate ./adapters/http/apiclient.
package main

import (
	"fmt"
	"os"

	"counsel/adapters/http/apiclient/internal/generate"
)

func main() {
	src, err := generate.Client()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile("client.gen.go", src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
