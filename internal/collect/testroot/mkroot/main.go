// Command mkroot builds a fake node root from testdata/nodes for demos and
// measurements: it copies the root, writes its journal with
// systemd-journal-remote and can add generated bulk logs.
//
//	go run ./internal/collect/testroot/mkroot -name al2023-nodeadm-failure -dest /tmp/node [-bulk 200]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/nodetriage/nodetriage/internal/collect/testroot"
)

func main() {
	name := flag.String("name", testroot.Names[0], "fake node to build (one of testdata/nodes)")
	dest := flag.String("dest", "", "folder to create the node root in (must not exist)")
	bulk := flag.Int64("bulk", 0, "MiB of generated logs to add")
	flag.Parse()
	if *dest == "" {
		fmt.Fprintln(os.Stderr, "mkroot: -dest is required")
		os.Exit(2)
	}
	if _, err := os.Lstat(*dest); err == nil {
		fmt.Fprintf(os.Stderr, "mkroot: %s already exists\n", *dest)
		os.Exit(2)
	}
	if err := testroot.Materialize(*name, *dest, testroot.JournalRemote); err != nil {
		fmt.Fprintln(os.Stderr, "mkroot:", err)
		os.Exit(1)
	}
	if *bulk > 0 {
		if err := testroot.AddBulkLogs(*dest, *bulk<<20); err != nil {
			fmt.Fprintln(os.Stderr, "mkroot:", err)
			os.Exit(1)
		}
	}
	fmt.Println(*dest)
}
