"""GPU: a CUDA device array (__cuda_array_interface__ or DLPack) is rendered in place, with no
host copy.

The device memory comes from the test's own helper library (GRANRAY_TRANSFER_TRACE, loaded with
ctypes): no CUDA array library (CuPy, Numba, PyTorch) is needed, and the protocol is the one
they all speak. CUPTI records every memcpy while a frame renders, as in the C++ zero-copy test.
Exits 77 (ctest: skipped) without a GPU.
"""
import ctypes
import os
import sys
import tempfile
import time
import unittest

import numpy as np

import granray

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clump_scenes import random_clumps  # noqa: E402 - beside this test

SEED = int(os.environ.get("GRANRAY_TEST_SEED", time.time_ns() % 2**32))
WIDTH, HEIGHT = 640, 360


class DeviceArray:
    """Device memory holding a copy of a NumPy array, offered as __cuda_array_interface__."""

    def __init__(self, lib, host):
        self.lib = lib
        self.host = np.ascontiguousarray(host)
        self.ptr = lib.granray_test_device_copy(self.host.ctypes.data, self.host.nbytes)
        if not self.ptr:
            raise MemoryError("cudaMalloc failed")
        self.__cuda_array_interface__ = {"shape": self.host.shape, "typestr": self.host.dtype.str,
                                         "data": (self.ptr, False), "version": 3,
                                         "strides": None, "stream": None}

    def free(self):
        self.lib.granray_test_device_free(ctypes.c_void_p(self.ptr))


class DLPackOnly:
    """An array offered through DLPack only, not __cuda_array_interface__."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def load_helper():
    lib = ctypes.CDLL(os.environ["GRANRAY_TRANSFER_TRACE"])
    lib.granray_test_device_copy.restype = ctypes.c_void_p
    lib.granray_test_device_copy.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    lib.granray_test_device_read.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
    lib.granray_trace_stop.argtypes = [ctypes.POINTER(ctypes.c_uint64)] * 5
    return lib


def copies_while(lib, body):
    lib.granray_trace_start()
    body()
    values = [ctypes.c_uint64() for _ in range(5)]
    lib.granray_trace_stop(*values)
    return dict(zip(["copies", "to_host", "to_device", "largest_to_host", "largest_to_device"],
                    [v.value for v in values]))


class CudaArrayInterface(unittest.TestCase):
    def setUp(self):
        self.lib = load_helper()
        self.rng = np.random.default_rng(SEED)
        self.dir = tempfile.TemporaryDirectory(prefix="granray-cuda-py-")
        self.addCleanup(self.dir.cleanup)

    def test_a_device_array_renders_in_place_and_as_its_host_copy_does(self):
        n = 1_000_000
        xyz = self.rng.uniform(-0.5, 0.5, (n, 3)) * [1.0, 1.0, 0.3]
        xyzr = np.c_[xyz, self.rng.uniform(0.002, 0.004, n)].astype(np.float32)
        speed = self.rng.uniform(0.0, 2.0, n).astype(np.float32)
        d_xyzr, d_speed = DeviceArray(self.lib, xyzr), DeviceArray(self.lib, speed)
        self.addCleanup(d_xyzr.free)
        self.addCleanup(d_speed.free)
        settings = {"every": 1, "width": WIDTH, "height": HEIGHT, "backend": "cuda",
                    "color": {"field": "speed", "range": [0.0, 2.0]}}
        with granray.Renderer(settings) as vis:
            self.assertTrue(vis.render(0, 0.0, d_xyzr, fields={"speed": d_speed}).rendered)
            seen = copies_while(self.lib, lambda: self.assertTrue(
                vis.render(1, 0.1, d_xyzr, fields={"speed": d_speed}).rendered))
        print(f"[ copies ] {seen}", flush=True)
        self.assertLessEqual(seen["largest_to_host"], WIDTH * HEIGHT * 3)
        self.assertLessEqual(seen["to_host"], WIDTH * HEIGHT * 3 + 1024)
        self.assertLessEqual(seen["to_device"], 16 * 1024, "particles were uploaded")
        # The recorder does see a particle-sized copy: the assertions above can fail.
        back = np.empty_like(xyzr)
        control = copies_while(self.lib, lambda: self.lib.granray_test_device_read(
            back.ctypes.data, ctypes.c_void_p(d_xyzr.ptr), back.nbytes))
        self.assertEqual(control["largest_to_host"], xyzr.nbytes)
        np.testing.assert_array_equal(back, xyzr)

        images = []
        for name, positions, values in (("device", d_xyzr, d_speed), ("host", xyzr, speed)):
            settings["png"] = os.path.join(self.dir.name, name + "_*.png")
            with granray.Renderer(settings) as vis:
                record = vis.render(2, 0.2, positions, fields={"speed": values})
            self.assertTrue(record.rendered, record.error)
            images.append(granray.read_png(record.png_path))
        np.testing.assert_array_equal(images[0], images[1])

    def test_cupy_numba_and_torch_arrays_render_as_numpy_does(self):
        def to_device(name):
            if name == "cupy":
                import cupy
                return cupy.asarray
            if name == "numba":
                from numba import cuda
                return cuda.to_device
            import torch
            return lambda a: torch.from_numpy(a).cuda()

        n = 20000
        xyzr = np.c_[self.rng.uniform(-0.5, 0.5, (n, 3)),
                     self.rng.uniform(0.004, 0.01, n)].astype(np.float32)
        speed = self.rng.uniform(0.0, 2.0, n).astype(np.float32)
        settings = {"every": 1, "width": 320, "height": 240, "backend": "cuda",
                    "color": {"field": "speed", "range": [0.0, 2.0]},
                    "png": os.path.join(self.dir.name, "numpy_*.png")}
        with granray.Renderer(settings) as vis:
            record = vis.render(1, 0.0, xyzr, fields={"speed": speed})
        reference = granray.read_png(record.png_path)  # written once the renderer is closed
        tried = []
        for name in ("cupy", "numba", "torch"):
            try:
                make = to_device(name)
                d_xyzr, d_speed = make(xyzr), make(speed)
            except Exception as error:  # noqa: BLE001 - a library that is absent or broken
                print(f"[ {name} ] not used: {type(error).__name__}: {error}", flush=True)
                continue
            settings["png"] = os.path.join(self.dir.name, name + "_*.png")
            with granray.Renderer(settings) as vis:
                vis.render(0, 0.0, d_xyzr, fields={"speed": d_speed})  # warm-up
                records = []
                seen = copies_while(self.lib, lambda: records.append(
                    vis.render(1, 0.0, d_xyzr, fields={"speed": d_speed})))
            record = records[0]
            self.assertTrue(record.rendered, f"{name}: {record.error}")
            # In place: nothing to the device; to the host only what the PNG needs later (the
            # writer settles the image on its thread, maybe after the trace) and a few bytes.
            print(f"[ {name} copies ] {seen}", flush=True)
            self.assertEqual(seen["to_device"], 0, name)
            self.assertLessEqual(seen["largest_to_host"], 320 * 240 * 3, name)
            np.testing.assert_array_equal(granray.read_png(record.png_path), reference,
                                          err_msg=name)
            tried.append(name)
            if not hasattr(d_xyzr, "__dlpack__"):
                continue
            # The same arrays seen through DLPack alone (as JAX offers them).
            settings["png"] = os.path.join(self.dir.name, name + "_dlpack_*.png")
            with granray.Renderer(settings) as vis:
                record = vis.render(1, 0.0, DLPackOnly(d_xyzr),
                                    fields={"speed": DLPackOnly(d_speed)})
            self.assertTrue(record.rendered, f"{name} through DLPack: {record.error}")
            np.testing.assert_array_equal(granray.read_png(record.png_path), reference,
                                          err_msg=name + " through DLPack")
            tried.append(name + " (DLPack)")
        print(f"[ libraries ] rendered in place from: {', '.join(tried) or 'none'}", flush=True)
        if not tried:
            self.skipTest("no CUDA array library (CuPy, Numba, PyTorch) here")

    def test_clumps_gather_on_the_device_as_on_the_host_and_render_in_place(self):
        # DEM-Engine's owners in device buffers (positions, (x, y, z, w) quaternions, a value):
        # ClumpGather(device=True) writes the component spheres on the GPU; they equal the host
        # gather's up to rounding and render with no particle upload.
        n = 20000
        templates, template_of, positions, quat, speed = random_clumps(self.rng, n, 0.5)
        host_xyzr, host_values = granray.ClumpGather(templates, template_of).gather(
            positions, quat, speed)
        d_pos, d_quat, d_speed = (DeviceArray(self.lib, a) for a in (positions, quat, speed))
        for a in (d_pos, d_quat, d_speed):
            self.addCleanup(a.free)
        gather = granray.ClumpGather(templates, template_of, device=True)
        xyzr, values = gather.gather(d_pos, d_quat, d_speed)
        self.assertEqual(xyzr.__cuda_array_interface__["shape"], host_xyzr.shape)
        back = np.empty_like(host_xyzr)
        self.lib.granray_test_device_read(back.ctypes.data,
                                          ctypes.c_void_p(xyzr.__cuda_array_interface__["data"][0]),
                                          back.nbytes)
        np.testing.assert_allclose(back, host_xyzr, rtol=1e-6, atol=1e-7)
        back_values = np.empty_like(host_values)
        self.lib.granray_test_device_read(
            back_values.ctypes.data, ctypes.c_void_p(values.__cuda_array_interface__["data"][0]),
            back_values.nbytes)
        np.testing.assert_array_equal(back_values, host_values)
        settings = {"every": 1, "width": 320, "height": 240, "backend": "cuda",
                    "color": {"field": "speed", "range": [0.0, 2.0]}}
        with granray.Renderer(settings) as vis:
            self.assertTrue(vis.render(0, 0.0, xyzr, fields={"speed": values}).rendered)
            records = []
            seen = copies_while(self.lib, lambda: records.append(
                vis.render(1, 0.0, xyzr, fields={"speed": values})))
        self.assertTrue(records[0].rendered, records[0].error)
        self.assertLessEqual(seen["to_device"], 16 * 1024, "the gathered spheres were uploaded")

    def test_a_device_array_that_cannot_be_used_in_place_is_refused(self):
        xyz = DeviceArray(self.lib, self.rng.uniform(0, 1, (100, 3)).astype(np.float32))
        wide = DeviceArray(self.lib, self.rng.uniform(0, 1, (100, 4)))
        self.addCleanup(xyz.free)
        self.addCleanup(wide.free)
        with granray.Renderer({"every": 1, "width": 64, "height": 48, "backend": "cuda"}) as vis:
            for array, got in ((xyz, "shape (100, 3)"), (wide, "'<f8'")):
                with self.assertRaises(granray.InputError) as caught:
                    vis.render(0, 0.0, array)
                self.assertIn("rendered in place", str(caught.exception))
                self.assertIn(got, str(caught.exception))


if __name__ == "__main__":
    if granray.cuda_devices() == 0 or not os.environ.get("GRANRAY_TRANSFER_TRACE"):
        print("test_cuda_array: skipped, no CUDA device (or no CUPTI helper)")
        sys.exit(77)
    print(f"test_cuda_array: seed {SEED}", flush=True)
    unittest.main()
