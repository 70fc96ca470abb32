"""Pure cache logic: types, ports, task checks, policy and the pipeline.

Nothing here imports the UI, the model runtime, the embedder or the vector store; the
adapters in sibling packages plug into the ports defined in `ports.py`.
"""
