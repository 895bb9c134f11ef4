# versitygw is the real S3 server the S3 tests run against (posix backend on
# 127.0.0.1). It is built from the Go module proxy, pinned, into .bin/.
# The S3 tests look for it at $FOLIO_VERSITYGW, else at .bin/versitygw.

VERSITYGW_VERSION ?= v1.8.0
VERSITYGW ?= $(CURDIR)/.bin/versitygw

.PHONY: versitygw
versitygw: $(VERSITYGW)

$(VERSITYGW):
	GOBIN=$(dir $(VERSITYGW)) go install github.com/versity/versitygw/cmd/versitygw@$(VERSITYGW_VERSION)
