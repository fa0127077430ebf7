// Lists what `pulumi policy publish` (v3.260.0) puts in a Python pack's archive, with the CLI's own
// archive.TGZ (default excludes, .gitignore files of the directory, its subdirectories and parents).
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/archive"
)

func main() {
	data, err := archive.TGZ(os.Args[1], "package", true /*useDefaultExcludes*/)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	reader := tar.NewReader(gz)
	for {
		header, err := reader.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("%s\t%d\n", header.Name, header.Size)
	}
}
