// Command folio serves a site's content from a Git repository and its media
// library over HTTP, and manages API keys.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

const usage = `folio: a headless CMS and media service serving a Git repository.

Usage:
  folio serve --site PATH_OR_URL [flags]   serve the content and media API
  folio check --site PATH_OR_URL [--branch NAME] | --worktree DIR
                                           print every content problem; exit 1 if any
  folio schema infer --site PATH_OR_URL [--branch NAME] | --worktree DIR
                                           propose a content model from the content
  folio keys create --keys FILE --name NAME --scopes SCOPE[,SCOPE...]
  folio keys list --keys FILE
  folio keys revoke --keys FILE --name NAME
  folio media import --media DIR [--folder PATH] FILE...
                                           add files to a media library
  folio media regenerate --media DIR [--folder PATH] [...]
                                           render the images' derivatives again
  folio media migrate --media DIR --storage s3 --s3-endpoint URL --s3-bucket NAME [...]
                                           move a library kept on the media root into the bucket
  folio media sign --url-secret SECRET URL...
                                           sign image variant URLs (/uploads/<key>?w=&h=...)
  folio version

Every flag can also be set as an environment variable FOLIO_<FLAG>,
e.g. FOLIO_SITE, FOLIO_WEBHOOK_SECRET. 'folio CMD -h' lists a command's flags.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	var exit exitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		os.Exit(int(exit))
	case errors.Is(err, flag.ErrHelp):
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "folio:", err)
		os.Exit(1)
	}
}

// exitError ends the program with a status and no further message.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitError(2)
	}
	switch args[0] {
	case "serve":
		return runServe(ctx, args[1:], stdout, stderr)
	case "check":
		return runCheck(ctx, args[1:], stdout, stderr)
	case "keys":
		return runKeys(args[1:], stdout, stderr)
	case "schema":
		return runSchema(ctx, args[1:], stdout, stderr)
	case "media":
		return runMedia(ctx, args[1:], stdout, stderr)
	case "version", "--version", "-v":
		printVersion(stdout)
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprintf(stderr, "folio: unknown command %q\n\n%s", args[0], usage)
	return exitError(2)
}
