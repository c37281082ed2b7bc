# gilsan: expect = pass
# gilsan: module_loading = eager
# gilsan: description = the header's module_loading is the child's CUDA_MODULE_LOADING, whatever the caller's says
import os

print("CUDA_MODULE_LOADING", os.environ.get("CUDA_MODULE_LOADING"))
