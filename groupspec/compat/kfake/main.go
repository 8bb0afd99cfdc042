// A one-broker franz-go kfake cluster for `groupspec compat` (groupspec/compat/launchers.py).
//
// It prints "bootstrap HOST:PORT" once the broker listens, then runs until SIGTERM or SIGINT,
// or until its stdin ends (so it does not outlive a parent that died without stopping it).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/twmb/franz-go/pkg/kfake"
)

func main() {
	port := flag.Int("port", 0, "the port on 127.0.0.1 (0: any free one)")
	flag.Parse()

	opts := []kfake.Opt{kfake.NumBrokers(1), kfake.AllowAutoTopicCreation()}
	if *port != 0 {
		opts = append(opts, kfake.Ports(*port))
	}
	cluster, err := kfake.NewCluster(opts...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kfake: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("bootstrap %s\n", cluster.ListenAddrs()[0])

	done := make(chan os.Signal, 1)
	signal.Notify(done, os.Interrupt, syscall.SIGTERM)
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		done <- syscall.SIGTERM
	}()
	<-done
	cluster.Close()
}
