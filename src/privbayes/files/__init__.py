"""File formats that are not private data: bounded YAML/JSON documents (:mod:`.documents`), compact array
blocks inside model files (:mod:`.blocks`) and atomic writes of every output (:mod:`.tables`)."""
