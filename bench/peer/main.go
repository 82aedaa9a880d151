// Command peer is the webhook a Go operator author would write instead of crdgate: controller-runtime's
// webhook.Server with one admission.Handler for GeoDatabase v1. crdgate's benchmark runs it as a peer, and a test
// checks that both answer the same reviews the same way.
package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
)

func main() {
	certDir := flag.String("cert-dir", "", "folder with tls.crt and tls.key")
	port := flag.Int("port", 0, "port on 127.0.0.1")
	flag.Parse()
	if *certDir == "" || *port <= 0 {
		fmt.Fprintln(os.Stderr, "usage: peer --cert-dir DIR --port N")
		os.Exit(2)
	}
	// Info level, as kubebuilder scaffolds it: controller-runtime logs requests only at debug verbosity.
	ctrl.SetLogger(zap.New(zap.UseDevMode(false), zap.WriteTo(os.Stderr)))

	server := webhook.NewServer(webhook.Options{
		Host:    "127.0.0.1",
		Port:    *port,
		CertDir: *certDir,
		// HTTP/1.1 only, as kubebuilder's scaffold configures it (and as crdgate serves).
		TLSOpts: []func(*tls.Config){func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }},
	})
	server.Register("/validate", &webhook.Admission{Handler: geoDatabaseValidator{}})

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go announceReady(ctx, server)
	if err := server.Start(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "peer: %v\n", err)
		os.Exit(1)
	}
}

// announceReady prints one line on stdout once the server answers TLS, so the parent knows when to send.
func announceReady(ctx context.Context, server webhook.Server) {
	check := server.StartedChecker()
	for ctx.Err() == nil {
		if check(nil) == nil {
			fmt.Println("ready")
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
