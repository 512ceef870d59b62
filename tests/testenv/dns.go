// `testenv component dns KUBECONFIG LISTEN` answers the cluster's Service
// names for Pods: A records for <service>.<namespace>.svc.cluster.local (the
// ClusterIP, or the ready endpoints of a headless Service) and NXDOMAIN for
// everything else, since Pods reach nothing outside the node. It stands in for
// CoreDNS (see README.md for why) and serves UDP and TCP.
package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"golang.org/x/net/dns/dnsmessage"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	listersv1 "k8s.io/client-go/listers/core/v1"
	discoverylisters "k8s.io/client-go/listers/discovery/v1"
)

const dnsTTL = 5

type dnsServer struct {
	services listersv1.ServiceLister
	slices   discoverylisters.EndpointSliceLister
}

func runDNS(args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: testenv component dns KUBECONFIG LISTEN_ADDR")
		return 2
	}
	cs, err := clientsetFor(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "testenv dns:", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	factory := informers.NewSharedInformerFactory(cs, 10*time.Minute)
	s := &dnsServer{
		services: factory.Core().V1().Services().Lister(),
		slices:   factory.Discovery().V1().EndpointSlices().Lister(),
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	udp, err := net.ListenPacket("udp", args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "testenv dns:", err)
		return 1
	}
	tcp, err := net.Listen("tcp", args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "testenv dns:", err)
		return 1
	}
	go s.serveUDP(udp)
	go s.serveTCP(tcp)
	fmt.Fprintf(os.Stderr, "testenv dns: serving %s on %s\n", clusterDomain, args[1])
	<-ctx.Done()
	return 0
}

func (s *dnsServer) serveUDP(conn net.PacketConn) {
	buf := make([]byte, 1500)
	for {
		n, addr, err := conn.ReadFrom(buf)
		if err != nil {
			return
		}
		if reply := s.answer(buf[:n]); reply != nil {
			_, _ = conn.WriteTo(reply, addr)
		}
	}
}

func (s *dnsServer) serveTCP(l net.Listener) {
	for {
		conn, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
			var size [2]byte
			for {
				if _, err := io.ReadFull(conn, size[:]); err != nil {
					return
				}
				msg := make([]byte, binary.BigEndian.Uint16(size[:]))
				if _, err := io.ReadFull(conn, msg); err != nil {
					return
				}
				reply := s.answer(msg)
				if reply == nil {
					return
				}
				binary.BigEndian.PutUint16(size[:], uint16(len(reply)))
				if _, err := conn.Write(append(size[:], reply...)); err != nil {
					return
				}
			}
		}()
	}
}

// answer builds the reply to one query, or nil for a message it cannot parse.
func (s *dnsServer) answer(query []byte) []byte {
	var p dnsmessage.Parser
	header, err := p.Start(query)
	if err != nil {
		return nil
	}
	question, err := p.Question()
	if err != nil {
		return nil
	}
	reply := dnsmessage.Message{
		Header:    dnsmessage.Header{ID: header.ID, Response: true, Authoritative: true, RecursionDesired: header.RecursionDesired},
		Questions: []dnsmessage.Question{question},
	}
	ips, known := s.lookup(strings.ToLower(question.Name.String()))
	switch {
	case !known:
		reply.Header.RCode = dnsmessage.RCodeNameError
	case question.Type == dnsmessage.TypeA || question.Type == dnsmessage.TypeALL:
		for _, ip := range ips {
			reply.Answers = append(reply.Answers, dnsmessage.Resource{
				Header: dnsmessage.ResourceHeader{Name: question.Name, Type: dnsmessage.TypeA,
					Class: dnsmessage.ClassINET, TTL: dnsTTL},
				Body: &dnsmessage.AResource{A: [4]byte(ip.To4())},
			})
		}
	}
	out, err := reply.Pack()
	if err != nil {
		return nil
	}
	return out
}

// lookup resolves <service>.<namespace>.svc.cluster.local. known is false
// when the name does not exist (NXDOMAIN); a Service without ready
// endpoints exists but has no addresses.
func (s *dnsServer) lookup(name string) (ips []net.IP, known bool) {
	suffix := ".svc." + clusterDomain + "."
	if !strings.HasSuffix(name, suffix) {
		return nil, false
	}
	parts := strings.Split(strings.TrimSuffix(name, suffix), ".")
	if len(parts) != 2 {
		return nil, false
	}
	svc, err := s.services.Services(parts[1]).Get(parts[0])
	if err != nil {
		return nil, false
	}
	if svc.Spec.ClusterIP != corev1.ClusterIPNone {
		if ip := net.ParseIP(svc.Spec.ClusterIP).To4(); ip != nil {
			return []net.IP{ip}, true
		}
		return nil, true
	}
	return s.readyEndpoints(svc), true
}

func (s *dnsServer) readyEndpoints(svc *corev1.Service) []net.IP {
	selector := labels.SelectorFromSet(labels.Set{discoveryv1.LabelServiceName: svc.Name})
	slices, err := s.slices.EndpointSlices(svc.Namespace).List(selector)
	if err != nil {
		return nil
	}
	var ips []net.IP
	for _, slice := range slices {
		for _, ep := range slice.Endpoints {
			if ep.Conditions.Ready != nil && !*ep.Conditions.Ready {
				continue
			}
			for _, a := range ep.Addresses {
				if ip := net.ParseIP(a).To4(); ip != nil {
					ips = append(ips, ip)
				}
			}
		}
	}
	return ips
}
