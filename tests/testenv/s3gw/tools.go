//go:build tools

// Package s3gw pins Versity's S3 gateway (versitygw, Apache-2.0), the test
// node's S3 server: build.sh builds github.com/versity/versitygw/cmd/versitygw
// from this module next to the testenv binary. A module of its own, so that
// the gateway's dependencies never move the control plane's.
package s3gw

import _ "github.com/versity/versitygw/cmd/versitygw"
