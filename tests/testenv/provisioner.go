// `testenv component provisioner KUBECONFIG VOLUMES_DIR` provisions claims of
// the StorageClasses whose provisioner is opctl.io/testenv-local as local
// PersistentVolumes: one directory per volume on the node, bound to the claim,
// and removed (directory and PV) when a released volume's reclaim policy is
// Delete. It is the node's whole storage stack, as local-path-provisioner is
// for kind.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

const (
	localProvisioner    = "opctl.io/testenv-local"
	defaultStorageClass = "testenv-local"
	provisionedBy       = "pv.kubernetes.io/provisioned-by"
	storageProvisioner  = "volume.kubernetes.io/storage-provisioner"
)

type provisioner struct {
	cs         kubernetes.Interface
	volumesDir string
}

func runProvisioner(args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: testenv component provisioner KUBECONFIG VOLUMES_DIR")
		return 2
	}
	cs, err := clientsetFor(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "testenv provisioner:", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	p := &provisioner{cs: cs, volumesDir: args[1]}
	// A short poll keeps this small and obviously correct; claims bind within
	// a second, which is what a test waits for.
	for ctx.Err() == nil {
		if err := p.sync(ctx); err != nil && ctx.Err() == nil {
			fmt.Fprintln(os.Stderr, "testenv provisioner:", err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(500 * time.Millisecond):
		}
	}
	return 0
}

func (p *provisioner) sync(ctx context.Context) error {
	classes, err := p.cs.StorageV1().StorageClasses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	ours := map[string]*storagev1.StorageClass{}
	for i := range classes.Items {
		if classes.Items[i].Provisioner == localProvisioner {
			ours[classes.Items[i].Name] = &classes.Items[i]
		}
	}
	claims, err := p.cs.CoreV1().PersistentVolumeClaims("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for i := range claims.Items {
		claim := &claims.Items[i]
		if claim.Status.Phase != corev1.ClaimPending || claim.Spec.VolumeName != "" ||
			claim.Spec.StorageClassName == nil || claim.DeletionTimestamp != nil {
			continue
		}
		if class := ours[*claim.Spec.StorageClassName]; class != nil {
			if err := p.provision(ctx, claim, class); err != nil {
				fmt.Fprintf(os.Stderr, "testenv provisioner: claim %s/%s: %v\n", claim.Namespace, claim.Name, err)
			}
		}
	}
	return p.reclaim(ctx)
}

func (p *provisioner) provision(ctx context.Context, claim *corev1.PersistentVolumeClaim, class *storagev1.StorageClass) error {
	name := "pvc-" + string(claim.UID)
	path := filepath.Join(p.volumesDir, name)
	// World-writable like a fresh filesystem's root as seen by a non-root
	// container; the kubelet does not apply fsGroup to local volumes' roots.
	if err := os.MkdirAll(path, 0o777); err != nil {
		return err
	}
	if err := os.Chmod(path, 0o777); err != nil {
		return err
	}
	reclaim := corev1.PersistentVolumeReclaimDelete
	if class.ReclaimPolicy != nil {
		reclaim = *class.ReclaimPolicy
	}
	mode := corev1.PersistentVolumeFilesystem
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{provisionedBy: localProvisioner}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: claim.Spec.Resources.Requests[corev1.ResourceStorage]},
			AccessModes:                   claim.Spec.AccessModes,
			PersistentVolumeReclaimPolicy: reclaim,
			StorageClassName:              class.Name,
			VolumeMode:                    &mode,
			ClaimRef: &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1",
				Namespace: claim.Namespace, Name: claim.Name, UID: claim.UID},
			PersistentVolumeSource: corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: path}},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "kubernetes.io/hostname",
					Operator: corev1.NodeSelectorOpIn, Values: []string{nodeName}}},
			}}}},
		},
	}
	_, err := p.cs.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	if err == nil {
		fmt.Fprintf(os.Stderr, "testenv provisioner: %s for claim %s/%s at %s\n", name, claim.Namespace, claim.Name, path)
	}
	return err
}

// reclaim deletes released volumes of ours whose policy is Delete; Retain
// keeps both the PV and the data, as on a real cluster.
func (p *provisioner) reclaim(ctx context.Context) error {
	pvs, err := p.cs.CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, pv := range pvs.Items {
		if pv.Annotations[provisionedBy] != localProvisioner || pv.Status.Phase != corev1.VolumeReleased ||
			pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimDelete || pv.Spec.Local == nil {
			continue
		}
		if filepath.Dir(pv.Spec.Local.Path) == filepath.Clean(p.volumesDir) {
			if err := os.RemoveAll(pv.Spec.Local.Path); err != nil {
				return err
			}
		}
		err := p.cs.CoreV1().PersistentVolumes().Delete(ctx, pv.Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		fmt.Fprintf(os.Stderr, "testenv provisioner: deleted released %s\n", pv.Name)
	}
	return nil
}

// defaultStorageClassObject is created by `up`: the class claims get when
// they name none.
func defaultStorageClassObject() *storagev1.StorageClass {
	reclaim := corev1.PersistentVolumeReclaimDelete
	binding := storagev1.VolumeBindingImmediate
	return &storagev1.StorageClass{
		ObjectMeta: metav1.ObjectMeta{Name: defaultStorageClass,
			Annotations: map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}},
		Provisioner:       localProvisioner,
		ReclaimPolicy:     &reclaim,
		VolumeBindingMode: &binding,
	}
}
