<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>DeviceQuery</name>
    <message>
        <source>No GPU: this build has no GPU support</source>
        <translation>Keine GPU: dieser Build unterstützt keine GPU</translation>
    </message>
    <message>
        <source>No %1 GPU found</source>
        <translation>Keine %1-GPU gefunden</translation>
    </message>
    <message>
        <source>An %1 GPU is present, but its driver is missing or older than this build needs: install or update the %1 driver (%2)</source>
        <translation>Eine %1-GPU ist vorhanden, aber ihr Treiber fehlt oder ist älter, als dieser Build braucht: installieren oder aktualisieren Sie den %1-Treiber (%2)</translation>
    </message>
    <message>
        <source>An %1 GPU is present, but it did not start (%2)</source>
        <translation>Eine %1-GPU ist vorhanden, ließ sich aber nicht starten (%2)</translation>
    </message>
    <message>
        <source>%1: %2, %3 threads, %4 GiB RAM (%5 GiB free)</source>
        <translation>%1: %2, %3 Threads, %4 GiB RAM (%5 GiB frei)</translation>
    </message>
    <message>
        <source>%1: %2, %3 GiB memory (%4 GiB free), %5 SMs</source>
        <translation>%1: %2, %3 GiB Speicher (%4 GiB frei), %5 SMs</translation>
    </message>
    <message>
        <source>%1 runs %2; on the CPU: %3</source>
        <translation>%1 rechnet %2; auf der CPU: %3</translation>
    </message>
    <message>
        <source>GPU: %1 (%2, %3 GiB free of %4)</source>
        <translation>GPU: %1 (%2, %3 GiB von %4 frei)</translation>
    </message>
    <message>
        <source>CPU: %1 threads (%2)</source>
        <translation>CPU: %1 Threads (%2)</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Quantization workbench for LLM tensors.</source>
        <translation>Quantisierungs-Werkbank für LLM-Tensoren.</translation>
    </message>
    <message>
        <source>Once the checkpoint has been opened (or has failed to open), save the window as a PNG to &lt;file&gt; and quit.</source>
        <translation>Sobald der Checkpoint geöffnet ist (oder das Öffnen fehlgeschlagen ist), das Fenster als PNG in &lt;datei&gt; speichern und beenden.</translation>
    </message>
    <message>
        <source>file</source>
        <translation>datei</translation>
    </message>
    <message>
        <source>Give at most one path to open.</source>
        <translation>Höchstens einen Pfad zum Öffnen angeben.</translation>
    </message>
    <message>
        <source>Once the checkpoint is open, quantize a weight of it with three configurations (for screenshots and first looks).</source>
        <translation>Sobald der Checkpoint geöffnet ist, ein Gewicht daraus mit drei Konfigurationen quantisieren (für Screenshots und einen ersten Eindruck).</translation>
    </message>
    <message>
        <source>A .safetensors file, a model.safetensors.index.json, a checkpoint folder, a .npy/.npz file or a .qscope session. Without it, the built-in demo opens.</source>
        <translation>Eine .safetensors-Datei, eine model.safetensors.index.json, ein Checkpoint-Ordner, eine .npy/.npz-Datei oder eine .qscope-Sitzung. Ohne Angabe öffnet sich die eingebaute Demo.</translation>
    </message>
    <message>
        <source>name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Once the checkpoint is open, compare &lt;paths&gt; (A,B or A,B,REFERENCE) in the Compare view.</source>
        <translation>Sobald der Checkpoint geöffnet ist, &lt;paths&gt; (A,B oder A,B,REFERENZ) in der Ansicht Vergleich vergleichen.</translation>
    </message>
    <message>
        <source>paths</source>
        <translation>Pfade</translation>
    </message>
    <message>
        <source>Show the view &lt;name&gt; (spectrum: with the residual spectra computed). Views: %1.</source>
        <translation>Die Ansicht &lt;name&gt; zeigen (spectrum: mit berechneten Residuenspektren). Ansichten: %1.</translation>
    </message>
</context>
<context>
    <name>quantscope::AnalysisController</name>
    <message>
        <source>&amp;Scale constant</source>
        <translation>&amp;Skalierungskonstante</translation>
    </message>
    <message>
        <source>constOpt&apos;s MSE for every scale constant c; click to set c</source>
        <translation>MSE von constOpt für jede Skalierungskonstante c; Klick setzt c</translation>
    </message>
    <message>
        <source>&amp;Kurtosis</source>
        <translation>&amp;Kurtosis</translation>
    </message>
    <message>
        <source>Per-channel excess kurtosis and the error it brings</source>
        <translation>Exzess-Kurtosis je Kanal und der Fehler, den sie bringt</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>Abgebrochen</translation>
    </message>
    <message>
        <source>The sweep failed: %1</source>
        <translation>Der Durchlauf ist fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Computing the kurtosis failed: %1</source>
        <translation>Die Berechnung der Kurtosis ist fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>&amp;GEMM timing</source>
        <translation>&amp;GEMM-Zeiten</translation>
    </message>
    <message>
        <source>What BF16, FP8 and INT8 GEMMs of the tensor&apos;s shape cost against M</source>
        <translation>Was BF16-, FP8- und INT8-GEMMs in der Form des Tensors über M kosten</translation>
    </message>
    <message>
        <source>Timing the GEMMs failed: %1</source>
        <translation>Die GEMM-Zeitmessung ist fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Scale-constant sweep of %1</source>
        <translation>Skalierungskonstanten-Durchlauf von %1</translation>
    </message>
    <message numerus="yes">
        <source>Kurtosis of %n tensor(s)</source>
        <translation>
            <numerusform>Kurtosis von %n Tensor</numerusform>
            <numerusform>Kurtosis von %n Tensoren</numerusform>
        </translation>
    </message>
    <message>
        <source>GEMM timing of %1</source>
        <translation>GEMM-Zeitmessung von %1</translation>
    </message>
</context>
<context>
    <name>quantscope::BudgetBarsPlot</name>
    <message>
        <source>module (checkpoint order)</source>
        <translation>Modul (Reihenfolge im Checkpoint)</translation>
    </message>
    <message>
        <source>bits per weight</source>
        <translation>Bit pro Gewicht</translation>
    </message>
    <message>
        <source>%1: %2, %3 bits per weight</source>
        <translation>%1: %2, %3 Bit pro Gewicht</translation>
    </message>
</context>
<context>
    <name>quantscope::BudgetPointsPlot</name>
    <message>
        <source>MB</source>
        <translation>MB</translation>
    </message>
    <message>
        <source>measured KL (nats/token)</source>
        <translation>gemessene KL (nat/Token)</translation>
    </message>
    <message>
        <source>predicted</source>
        <translation>vorhergesagt</translation>
    </message>
    <message>
        <source>measured KL</source>
        <translation>gemessene KL</translation>
    </message>
    <message>
        <source>KL 95 % interval</source>
        <translation>95-%-Intervall der KL</translation>
    </message>
    <message>
        <source>predicted output-aware error</source>
        <translation>vorhergesagter ausgabebezogener Fehler</translation>
    </message>
    <message>
        <source>predicted weight error ‖W − Ŵ‖²</source>
        <translation>vorhergesagter Gewichtsfehler ‖W − Ŵ‖²</translation>
    </message>
    <message>
        <source>%1 MB: predicted %2</source>
        <translation>%1 MB: vorhergesagt %2</translation>
    </message>
    <message>
        <source>KL %1 (95 % interval %2 … %3), top-1 %4, perplexity %5</source>
        <translation>KL %1 (95-%-Intervall %2 … %3), Top-1 %4, Perplexität %5</translation>
    </message>
</context>
<context>
    <name>quantscope::BudgetView</name>
    <message>
        <source>Scan with several configurations to choose one per module under a size budget.</source>
        <translation>Mit mehreren Konfigurationen scannen, um unter einem Größenbudget je Modul eine zu wählen.</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>Exportieren…</translation>
    </message>
    <message>
        <source>Budget:</source>
        <translation>Bitbudget:</translation>
    </message>
    <message>
        <source>Sweep the selected tensor</source>
        <translation>Ausgewählten Tensor durchlaufen</translation>
    </message>
    <message>
        <source>%1: excess kurtosis %2, after the Hadamard rotation %3</source>
        <translation>%1: Exzess-Kurtosis %2, nach der Hadamard-Rotation %3</translation>
    </message>
    <message>
        <source>Any</source>
        <translation>Beliebig</translation>
    </message>
    <message>
        <source>Quark</source>
        <translation>Quark</translation>
    </message>
    <message>
        <source>compressed-tensors</source>
        <translation>compressed-tensors</translation>
    </message>
    <message>
        <source>FP8 block</source>
        <translation>FP8-Block</translation>
    </message>
    <message>
        <source>Quantscope native</source>
        <translation>Quantscope-nativ</translation>
    </message>
    <message>
        <source>Price only the configurations this checkpoint format can store; Any prices every configuration and says which formats can export the choice</source>
        <translation>Nur die Konfigurationen bewerten, die dieses Checkpoint-Format speichern kann; „Beliebig“ bewertet alle und nennt die Formate, die die Wahl exportieren können</translation>
    </message>
    <message>
        <source>Target:</source>
        <translation>Ziel:</translation>
    </message>
    <message>
        <source>Kept dense: %1 modules. Exports to: %2.</source>
        <translation>Dicht belassen: %1 Module. Exportierbar nach: %2.</translation>
    </message>
    <message>
        <source>no format</source>
        <translation>kein Format</translation>
    </message>
    <message>
        <source>Auto</source>
        <translation>Automatisch</translation>
    </message>
    <message>
        <source>Weight error</source>
        <translation>Gewichtsfehler</translation>
    </message>
    <message>
        <source>Output-aware error</source>
        <translation>Ausgabebezogener Fehler</translation>
    </message>
    <message>
        <source>What the budget minimises: the squared weight error ‖W − Ŵ‖², or the output-aware error E‖(W − Ŵ)x‖² on the capture the scan was paired with. Auto takes the output-aware error when every priced run has one</source>
        <translation>Was das Budget minimiert: den quadratischen Gewichtsfehler ‖W − Ŵ‖² oder den ausgabebezogenen Fehler E‖(W − Ŵ)x‖² auf der Aufzeichnung, mit der der Scan gekoppelt war. „Automatisch“ nimmt den ausgabebezogenen Fehler, wenn jeder bewertete Lauf einen hat</translation>
    </message>
    <message>
        <source>Minimise:</source>
        <translation>Minimieren:</translation>
    </message>
    <message>
        <source>Minimising %1: %2</source>
        <translation>Minimiert wird %1: %2</translation>
    </message>
    <message>
        <source>the output-aware error</source>
        <translation>der ausgabebezogene Fehler</translation>
    </message>
    <message>
        <source>the weight error</source>
        <translation>der Gewichtsfehler</translation>
    </message>
    <message>
        <source>Budget %1 MB: chosen %2 MB, %3 bits per weight, total %4 %5 (exact, %6 modules)</source>
        <translation>Budget %1 MB: gewählt %2 MB, %3 Bit pro Gewicht, %4 insgesamt %5 (exakt, %6 Module)</translation>
    </message>
    <message>
        <source>output-aware error E‖(W − Ŵ)x‖²</source>
        <translation>ausgabebezogener Fehler E‖(W − Ŵ)x‖²</translation>
    </message>
    <message>
        <source>squared weight error ‖W − Ŵ‖²</source>
        <translation>quadratischer Gewichtsfehler ‖W − Ŵ‖²</translation>
    </message>
    <message>
        <source>No scan yet: add two or more configurations in the Quantizer dock and press Scan checkpoint in the Layers tab; then choose one per module under a size budget here.</source>
        <translation>Noch kein Scan: zwei oder mehr Konfigurationen im Quantisierer-Dock anlegen und im Reiter Schichten „Checkpoint scannen“ drücken; dann hier je Modul eine unter einem Größenbudget wählen.</translation>
    </message>
    <message>
        <source>optimum</source>
        <translation>Optimum</translation>
    </message>
</context>
<context>
    <name>quantscope::ChannelPlot</name>
    <message>
        <source>max |w|</source>
        <translation>max. |w|</translation>
    </message>
    <message>
        <source>max |x|</source>
        <translation>max. |x|</translation>
    </message>
    <message>
        <source>input channel (column)</source>
        <translation>Eingangskanal (Spalte)</translation>
    </message>
    <message>
        <source>output channel (row)</source>
        <translation>Ausgangskanal (Zeile)</translation>
    </message>
    <message>
        <source>channel max |w|</source>
        <translation>Kanal-Maximum |w|</translation>
    </message>
    <message>
        <source>top outlier channels</source>
        <translation>stärkste Ausreißerkanäle</translation>
    </message>
    <message>
        <source>activation max |x|</source>
        <translation>Aktivierung max |x|</translation>
    </message>
    <message>
        <source>channel %1: max |w| %2</source>
        <translation>Kanal %1: max |w| %2</translation>
    </message>
    <message>
        <source> (%1× the median channel)</source>
        <translation> (%1× der Median-Kanal)</translation>
    </message>
    <message>
        <source>activation: max |x| %1</source>
        <translation>Aktivierung: max |x| %1</translation>
    </message>
</context>
<context>
    <name>quantscope::CheckpointLoader</name>
    <message>
        <source>not quantized</source>
        <translation>nicht quantisiert</translation>
    </message>
    <message>
        <source>%1 elements, no scale found</source>
        <translation>%1-Elemente, keine Skala gefunden</translation>
    </message>
    <message>
        <source>%1 integers (codes, indices or packed words)</source>
        <translation>%1-Ganzzahlen (Codes, Indizes oder gepackte Wörter)</translation>
    </message>
    <message>
        <source>quantized</source>
        <translation>quantisiert</translation>
    </message>
</context>
<context>
    <name>quantscope::CompareController</name>
    <message>
        <source>Co&amp;mpare</source>
        <translation>Ver&amp;gleich</translation>
    </message>
    <message>
        <source>How two quantized checkpoints, or two scan reports, differ module by module</source>
        <translation>Wie sich zwei quantisierte Checkpoints oder zwei Scan-Berichte Modul für Modul unterscheiden</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>Abgebrochen</translation>
    </message>
    <message>
        <source>Comparing</source>
        <translation>Vergleiche</translation>
    </message>
    <message>
        <source>Comparison finished</source>
        <translation>Vergleich abgeschlossen</translation>
    </message>
    <message>
        <source>The comparison failed: %1</source>
        <translation>Der Vergleich ist fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Loading %1</source>
        <translation>Lade %1</translation>
    </message>
    <message>
        <source>Comparing %1 with %2</source>
        <translation>Vergleich von %1 mit %2</translation>
    </message>
</context>
<context>
    <name>quantscope::CompareView</name>
    <message>
        <source>Checkpoint or scan report</source>
        <translation>Checkpoint oder Scan-Bericht</translation>
    </message>
    <message>
        <source>Reference checkpoint (optional)</source>
        <translation>Referenz-Checkpoint (optional)</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>Vergleichen</translation>
    </message>
    <message>
        <source>Compare A and B module by module in the background</source>
        <translation>A und B im Hintergrund Modul für Modul vergleichen</translation>
    </message>
    <message>
        <source>Difference</source>
        <translation>Unterschied</translation>
    </message>
    <message>
        <source>Δ error (A − B)</source>
        <translation>Δ Fehler (A − B)</translation>
    </message>
    <message>
        <source>Error A</source>
        <translation>Fehler A</translation>
    </message>
    <message>
        <source>Error B</source>
        <translation>Fehler B</translation>
    </message>
    <message>
        <source>Codes differing</source>
        <translation>Abweichende Codes</translation>
    </message>
    <message>
        <source>The number the cells are coloured by</source>
        <translation>Die Zahl, nach der die Zellen gefärbt sind</translation>
    </message>
    <message>
        <source>Module</source>
        <translation>Modul</translation>
    </message>
    <message>
        <source>Scheme difference</source>
        <translation>Schemaunterschied</translation>
    </message>
    <message>
        <source>No comparison yet: give two checkpoints or two scan reports and press Compare.</source>
        <translation>Noch kein Vergleich: zwei Checkpoints oder zwei Scan-Berichte angeben und Vergleichen drücken.</translation>
    </message>
    <message numerus="yes">
        <source>%n module(s) compared</source>
        <translation>
            <numerusform>%n Modul verglichen</numerusform>
            <numerusform>%n Module verglichen</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 differ, %2 on one side only</source>
        <translation>%1 unterschiedlich, %2 nur auf einer Seite</translation>
    </message>
    <message>
        <source>Spearman %1</source>
        <translation>Spearman %1</translation>
    </message>
    <message>
        <source>Choose a checkpoint file or a scan report (a checkpoint folder can be typed)</source>
        <translation>Eine Checkpoint-Datei oder einen Scan-Bericht wählen (ein Checkpoint-Ordner kann eingetippt werden)</translation>
    </message>
    <message>
        <source>Choose a Checkpoint or Scan Report</source>
        <translation>Checkpoint oder Scan-Bericht wählen</translation>
    </message>
    <message>
        <source>Checkpoints and scan reports (*.safetensors *.json *.jsonl *.npz);;All files (*)</source>
        <translation>Checkpoints und Scan-Berichte (*.safetensors *.json *.jsonl *.npz);;Alle Dateien (*)</translation>
    </message>
</context>
<context>
    <name>quantscope::CoreMessages</name>
    <message>
        <source>profiling %1</source>
        <translation>Profil von %1</translation>
    </message>
    <message>
        <source>profiling channels of %1</source>
        <translation>Kanalprofil von %1</translation>
    </message>
    <message>
        <source>spectrum of %1</source>
        <translation>Spektrum von %1</translation>
    </message>
    <message>
        <source>done</source>
        <translation>fertig</translation>
    </message>
    <message>
        <source>unknown error</source>
        <translation>unbekannter Fehler</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>abgebrochen</translation>
    </message>
    <message>
        <source>activation %1: %2</source>
        <translation>Aktivierung %1: %2</translation>
    </message>
    <message>
        <source>activation has %1 channels, the weight %2 input channels: not paired</source>
        <translation>die Aktivierung hat %1 Kanäle, das Gewicht %2 Eingangskanäle: nicht gekoppelt</translation>
    </message>
    <message>
        <source>activation not available</source>
        <translation>Aktivierung nicht verfügbar</translation>
    </message>
    <message>
        <source>not in the capture %1</source>
        <translation>nicht in der Aufzeichnung %1</translation>
    </message>
    <message>
        <source>absmax of the loaded tensor</source>
        <translation>Betragsmaximum des geladenen Tensors</translation>
    </message>
    <message>
        <source>GPU failed (%1)</source>
        <translation>GPU fehlgeschlagen (%1)</translation>
    </message>
    <message>
        <source>GPU failed (%1): computed on the CPU</source>
        <translation>GPU fehlgeschlagen (%1): auf der CPU berechnet</translation>
    </message>
    <message>
        <source>%1: computed on the CPU</source>
        <translation>%1: auf der CPU berechnet</translation>
    </message>
    <message>
        <source>computed on the CPU</source>
        <translation>auf der CPU berechnet</translation>
    </message>
    <message>
        <source>empty tensor: computed on the CPU</source>
        <translation>leerer Tensor: auf der CPU berechnet</translation>
    </message>
    <message>
        <source>the engine returned no metrics</source>
        <translation>die Engine lieferte keine Metriken</translation>
    </message>
    <message>
        <source>out of memory</source>
        <translation>Speicher erschöpft</translation>
    </message>
    <message>
        <source>channel kurtosis of %1 on the device: %2</source>
        <translation>Kanal-Kurtosis von %1 auf dem Gerät: %2</translation>
    </message>
    <message>
        <source>device must be auto, cpu or gpu, not &apos;%1&apos;</source>
        <translation>das Gerät muss auto, cpu oder gpu sein, nicht „%1“</translation>
    </message>
    <message>
        <source>GPU requested but unavailable (%1)</source>
        <translation>GPU angefordert, aber nicht verfügbar (%1)</translation>
    </message>
    <message>
        <source>GPU requested but unavailable (%1): computed on the CPU</source>
        <translation>GPU angefordert, aber nicht verfügbar (%1): auf der CPU berechnet</translation>
    </message>
    <message>
        <source>GPU requested but this build&apos;s GPU backend has no KV lab: computed on the CPU</source>
        <translation>GPU angefordert, aber das GPU-Backend dieses Builds hat kein KV-Labor: auf der CPU berechnet</translation>
    </message>
    <message>
        <source>the GPU does not sweep this tensor: computed on the CPU</source>
        <translation>die GPU durchläuft diesen Tensor nicht: auf der CPU berechnet</translation>
    </message>
    <message>
        <source>the device failed (%1)</source>
        <translation>das Gerät ist fehlgeschlagen (%1)</translation>
    </message>
    <message>
        <source>roofline: %1</source>
        <translation>Roofline: %1</translation>
    </message>
    <message>
        <source>roofline not cached: %1</source>
        <translation>Roofline nicht zwischengespeichert: %1</translation>
    </message>
    <message>
        <source>GEMM lab not run on %1 (%2)</source>
        <translation>GEMM-Labor nicht auf %1 ausgeführt (%2)</translation>
    </message>
    <message>
        <source>no device kernel</source>
        <translation>kein Geräte-Kernel</translation>
    </message>
    <message>
        <source>no device linear algebra</source>
        <translation>keine lineare Algebra auf dem Gerät</translation>
    </message>
    <message>
        <source>no GEMM lab on this backend</source>
        <translation>kein GEMM-Labor auf diesem Backend</translation>
    </message>
    <message>
        <source>no device channel moments</source>
        <translation>keine Kanalmomente auf dem Gerät</translation>
    </message>
    <message>
        <source>no output-aware error on this backend</source>
        <translation>kein ausgabebezogener Fehler auf diesem Backend</translation>
    </message>
    <message>
        <source>built without a GPU backend</source>
        <translation>ohne GPU-Backend gebaut</translation>
    </message>
    <message>
        <source>no %1 GPU found</source>
        <translation>keine %1-GPU gefunden</translation>
    </message>
    <message>
        <source>an %1 GPU is present, but its driver is missing or older than this build&apos;s %2 runtime: install or update the %3 driver</source>
        <translation>eine %1-GPU ist vorhanden, aber ihr Treiber fehlt oder ist älter als die %2-Laufzeit dieses Builds: installieren oder aktualisieren Sie den %3-Treiber</translation>
    </message>
    <message>
        <source>an %1 GPU is present, but its driver is missing or older than this build&apos;s %2 runtime (%3): install or update the %4 driver</source>
        <translation>eine %1-GPU ist vorhanden, aber ihr Treiber fehlt oder ist älter als die %2-Laufzeit dieses Builds (%3): installieren oder aktualisieren Sie den %4-Treiber</translation>
    </message>
    <message>
        <source>an %1 GPU is present, but it did not start</source>
        <translation>eine %1-GPU ist vorhanden, startete aber nicht</translation>
    </message>
    <message>
        <source>an %1 GPU is present, but it did not start (%2)</source>
        <translation>eine %1-GPU ist vorhanden, startete aber nicht (%2)</translation>
    </message>
    <message>
        <source>Ŵ has %1 elements, W has %2</source>
        <translation>Ŵ hat %1 Elemente, W hat %2</translation>
    </message>
    <message>
        <source>output-aware error: %1 values are not %2 rows of K = %3</source>
        <translation>ausgabebezogener Fehler: %1 Werte sind nicht %2 Zeilen mit K = %3</translation>
    </message>
    <message>
        <source>output-aware error: the weight is %1 but the Gram is for K = %2</source>
        <translation>ausgabebezogener Fehler: das Gewicht ist %1, aber die Gram-Matrix gilt für K = %2</translation>
    </message>
    <message>
        <source>spectrum: the matrix has %1 elements, not %2x%3</source>
        <translation>Spektrum: die Matrix hat %1 Elemente, nicht %2×%3</translation>
    </message>
    <message>
        <source>spectrum: tau must be in (0, 1]</source>
        <translation>Spektrum: tau muss in (0, 1] liegen</translation>
    </message>
    <message>
        <source>spectrum: the matrix holds NaN/Inf at element %1</source>
        <translation>Spektrum: die Matrix enthält NaN/Inf bei Element %1</translation>
    </message>
    <message>
        <source>Hadamard rotation size must be a power of two ≥ 2, got %1</source>
        <translation>die Größe der Hadamard-Rotation muss eine Zweierpotenz ≥ 2 sein, erhalten: %1</translation>
    </message>
    <message>
        <source>Hadamard rotation of size %1 needs K divisible by it; K = %2 is not</source>
        <translation>eine Hadamard-Rotation der Größe %1 braucht ein dadurch teilbares K; K = %2 ist es nicht</translation>
    </message>
    <message>
        <source>the bidiagonal singular value iteration did not converge</source>
        <translation>die bidiagonale Singulärwert-Iteration konvergierte nicht</translation>
    </message>
    <message>
        <source>all singular values are computed for min(N, K) ≤ %1 only (here %2); ask for the top k instead</source>
        <translation>alle Singulärwerte werden nur für min(N, K) ≤ %1 berechnet (hier %2); fragen Sie stattdessen nach den größten k</translation>
    </message>
    <message>
        <source>top-k spectrum needs k ≥ 1</source>
        <translation>das Top-k-Spektrum braucht k ≥ 1</translation>
    </message>
    <message>
        <source>power iterations and oversampling must be ≥ 0</source>
        <translation>Potenziterationen und Überabtastung müssen ≥ 0 sein</translation>
    </message>
    <message>
        <source>svd_lowrank needs q ≥ 1</source>
        <translation>svd_lowrank braucht q ≥ 1</translation>
    </message>
    <message>
        <source>group %1 is longer than a row (%2 elements): each row is one short group, so this is not the group size it says</source>
        <translation>Gruppe %1 ist länger als eine Zeile (%2 Elemente): jede Zeile ist eine kurze Gruppe, also ist dies nicht die angegebene Gruppengröße</translation>
    </message>
    <message>
        <source>block %1 is longer than a row (%2 elements): each row is one short group, so this is not the block size it says</source>
        <translation>Block %1 ist länger als eine Zeile (%2 Elemente): jede Zeile ist eine kurze Gruppe, also ist dies nicht die angegebene Blockgröße</translation>
    </message>
    <message>
        <source>channel moment sums of unequal lengths</source>
        <translation>Kanalmomentsummen ungleicher Länge</translation>
    </message>
    <message>
        <source>rowRelativeErrors: W and its dequantized values differ in size</source>
        <translation>rowRelativeErrors: W und seine dequantisierten Werte sind verschieden groß</translation>
    </message>
    <message>
        <source>tensor &apos;%1&apos;</source>
        <translation>Tensor „%1“</translation>
    </message>
    <message>
        <source>byte %1</source>
        <translation>Byte %1</translation>
    </message>
    <message>
        <source>static activation scale must be a positive number, got &apos;%1&apos;</source>
        <translation>die statische Aktivierungsskala muss eine positive Zahl sein, erhalten: „%1“</translation>
    </message>
    <message>
        <source>activation quantization &apos;%1&apos; unknown (int8-token, fp8-token, fp8-tensor, static[:S])</source>
        <translation>Aktivierungsquantisierung „%1“ unbekannt (int8-token, fp8-token, fp8-tensor, static[:S])</translation>
    </message>
    <message>
        <source>cannot quantize %1 activations</source>
        <translation>%1-Aktivierungen können nicht quantisiert werden</translation>
    </message>
    <message>
        <source>awq quantizes per tensor, per output channel or per group along K</source>
        <translation>awq quantisiert pro Tensor, pro Ausgangskanal oder pro Gruppe entlang K</translation>
    </message>
    <message>
        <source>awq computes in FP32 with round(x/s) + z (compressed-tensors)</source>
        <translation>awq rechnet in FP32 mit round(x/s) + z (compressed-tensors)</translation>
    </message>
    <message>
        <source>awq n_grid must be 2..1000 (3 or more with duo_scaling on, 4 with both), got %1</source>
        <translation>awq n_grid muss 2..1000 sein (mindestens 3 mit duo_scaling on, 4 mit both), erhalten: %1</translation>
    </message>
    <message>
        <source>awq: no grid point gave a finite loss (NaN/Inf in the weight or the sample)</source>
        <translation>awq: kein Gitterpunkt ergab einen endlichen Verlust (NaN/Inf im Gewicht oder in der Stichprobe)</translation>
    </message>
    <message>
        <source>awq: %1 has %2 input features, the capture&apos;s %3 %4</source>
        <translation>awq: %1 hat %2 Eingangsmerkmale, %3 der Aufzeichnung %4</translation>
    </message>
    <message>
        <source>awq: the capture %1 holds no sample of %2&apos;s input rows, which AWQ&apos;s loss is measured on (capture again with rows &gt; 0)</source>
        <translation>awq: die Aufzeichnung %1 enthält keine Stichprobe der Eingabezeilen von %2, an denen AWQ seinen Verlust misst (erneut aufzeichnen mit rows &gt; 0)</translation>
    </message>
    <message>
        <source>awq: %1 holds NaN/Inf (first at element %2); AWQ needs finite weights</source>
        <translation>awq: %1 enthält NaN/Inf (zuerst bei Element %2); AWQ braucht endliche Gewichte</translation>
    </message>
    <message>
        <source>awq: %1 lacks its smoothing scales (one per input column)</source>
        <translation>awq: %1 fehlen die Glättungsskalen (eine pro Eingangsspalte)</translation>
    </message>
    <message>
        <source>c must be in [1e-6, 16], got %1</source>
        <translation>c muss in [1e-6, 16] liegen, erhalten: %1</translation>
    </message>
    <message>
        <source>rotate must be 0 or a power of two in 2..65536, got %1</source>
        <translation>rotate muss 0 oder eine Zweierpotenz in 2..65536 sein, erhalten: %1</translation>
    </message>
    <message>
        <source>the c grid needs 0 &lt; lo &lt; hi and step &gt; 0</source>
        <translation>das c-Gitter braucht 0 &lt; lo &lt; hi und step &gt; 0</translation>
    </message>
    <message>
        <source>the c grid has more than a million points</source>
        <translation>das c-Gitter hat mehr als eine Million Punkte</translation>
    </message>
    <message>
        <source>group size must be ≥ 1</source>
        <translation>die Gruppengröße muss ≥ 1 sein</translation>
    </message>
    <message>
        <source>cannot sweep %1 data</source>
        <translation>%1-Daten können nicht durchlaufen werden</translation>
    </message>
    <message>
        <source>gguf %1: rows of K = %2 are not a whole number of blocks of %3 (llama.cpp quantizes along K; pick a type with blocks of 32, or another tensor)</source>
        <translation>gguf %1: Zeilen mit K = %2 sind keine ganze Zahl von Blöcken zu %3 (llama.cpp quantisiert entlang K; wählen Sie einen Typ mit Blöcken zu 32 oder einen anderen Tensor)</translation>
    </message>
    <message>
        <source>gguf imatrix needs the module&apos;s inputs and none were paired with %1: capture them first (quantscope-cli capture MODEL --tokens FILE.npy --out CAP.safetensors) and pass --capture CAP.safetensors</source>
        <translation>gguf imatrix braucht die Eingaben des Moduls, und mit %1 wurden keine gekoppelt: zeichnen Sie sie zuerst auf (quantscope-cli capture MODEL --tokens FILE.npy --out CAP.safetensors) und übergeben Sie --capture CAP.safetensors</translation>
    </message>
    <message>
        <source>%1 needs the module&apos;s inputs and none were paired with %2: capture them first (quantscope-cli capture MODEL --tokens FILE.npy --out CAP.safetensors) and pass --capture CAP.safetensors</source>
        <translation>%1 braucht die Eingaben des Moduls, und mit %2 wurden keine gekoppelt: zeichnen Sie sie zuerst auf (quantscope-cli capture MODEL --tokens FILE.npy --out CAP.safetensors) und übergeben Sie --capture CAP.safetensors</translation>
    </message>
    <message>
        <source>gguf imatrix: the capture&apos;s %1 has %2 input channels, the weight %3</source>
        <translation>gguf imatrix: %1 der Aufzeichnung hat %2 Eingangskanäle, das Gewicht %3</translation>
    </message>
    <message>
        <source>gguf: Ŵ is kept with the result; this one has none</source>
        <translation>gguf: Ŵ wird mit dem Ergebnis aufbewahrt; dieses hat keines</translation>
    </message>
    <message>
        <source>this tensor</source>
        <translation>diesem Tensor</translation>
    </message>
    <message>
        <source>gptq quantizes per tensor, per output channel or per group along K, not %1</source>
        <translation>gptq quantisiert pro Tensor, pro Ausgangskanal oder pro Gruppe entlang K, nicht %1</translation>
    </message>
    <message>
        <source>gptq computes in FP32 with round(x/s) + z (compressed-tensors)</source>
        <translation>gptq rechnet in FP32 mit round(x/s) + z (compressed-tensors)</translation>
    </message>
    <message>
        <source>gptq block_size must be 1..1048576, got %1</source>
        <translation>gptq block_size muss 1..1048576 sein, erhalten: %1</translation>
    </message>
    <message>
        <source>gptq dampening must be a finite fraction ≥ 0</source>
        <translation>gptq dampening muss ein endlicher Anteil ≥ 0 sein</translation>
    </message>
    <message>
        <source>gptq target %1 is symmetric: the fp8 format has no zero point</source>
        <translation>gptq-Ziel %1 ist symmetrisch: das fp8-Format hat keinen Nullpunkt</translation>
    </message>
    <message>
        <source>gptq target %1 is symmetric: compressed-tensors refuses asymmetric FP4</source>
        <translation>gptq-Ziel %1 ist symmetrisch: compressed-tensors lehnt asymmetrisches FP4 ab</translation>
    </message>
    <message>
        <source>gptq target %1 has %2-bit codes, not bits %3</source>
        <translation>gptq-Ziel %1 hat %2-Bit-Codes, nicht bits %3</translation>
    </message>
    <message>
        <source>gptq target %1 takes its scales and rounding from the format (compressed-tensors&apos;); scale_rule, rounding, scale_dtype and eps are the int target&apos;s</source>
        <translation>gptq-Ziel %1 übernimmt Skalen und Rundung vom Format (wie compressed-tensors); scale_rule, rounding, scale_dtype und eps gehören zum int-Ziel</translation>
    </message>
    <message>
        <source>gptq target %1 quantizes per tensor or per output channel (the fp8 format has no groups)</source>
        <translation>gptq-Ziel %1 quantisiert pro Tensor oder pro Ausgabekanal (das fp8-Format hat keine Gruppen)</translation>
    </message>
    <message>
        <source>gptq target %1 quantizes per group along K, not %2</source>
        <translation>gptq-Ziel %1 quantisiert pro Gruppe entlang K, nicht %2</translation>
    </message>
    <message>
        <source>gptq target %1 has groups of 32 (compressed-tensors makes E8M0 scales only for group 32), not %2</source>
        <translation>gptq-Ziel %1 hat Gruppen zu 32 (compressed-tensors bildet E8M0-Skalen nur für Gruppe 32), nicht %2</translation>
    </message>
    <message>
        <source>the capture %1 holds only the diagonal of %2&apos;s input Gram and no row sample: GPTQ needs XᵀX (capture again with a larger gram bound, or with a row sample)</source>
        <translation>die Aufzeichnung %1 enthält nur die Diagonale der Eingangs-Gram-Matrix von %2 und keine Zeilenstichprobe: GPTQ braucht XᵀX (erneut aufzeichnen mit größerer Gram-Grenze oder mit einer Zeilenstichprobe)</translation>
    </message>
    <message>
        <source>gptq: %1 has %2 input features, the capture&apos;s %3 %4</source>
        <translation>gptq: %1 hat %2 Eingangsmerkmale, %3 der Aufzeichnung %4</translation>
    </message>
    <message>
        <source>gptq: %1 holds NaN/Inf (first at element %2); GPTQ needs finite weights</source>
        <translation>gptq: %1 enthält NaN/Inf (zuerst bei Element %2); GPTQ braucht endliche Gewichte</translation>
    </message>
    <message>
        <source>bits must be 2..8, got %1</source>
        <translation>bits muss 2..8 sein, erhalten: %1</translation>
    </message>
    <message>
        <source>group size must be ≥ 1, got %1</source>
        <translation>die Gruppengröße muss ≥ 1 sein, erhalten: %1</translation>
    </message>
    <message>
        <source>hqq-lib needs a group size that is a multiple of 8 (the library asserts it), got %1</source>
        <translation>hqq-lib braucht eine Gruppengröße, die ein Vielfaches von 8 ist (die Bibliothek prüft das), erhalten: %1</translation>
    </message>
    <message>
        <source>HQQ axis must be 0 or 1, got %1</source>
        <translation>die HQQ-Achse muss 0 oder 1 sein, erhalten: %1</translation>
    </message>
    <message>
        <source>iters must be 1..1000, got %1</source>
        <translation>iters muss 1..1000 sein, erhalten: %1</translation>
    </message>
    <message>
        <source>HQQ needs numel divisible by the group size: numel = %1, group = %2</source>
        <translation>HQQ braucht eine durch die Gruppengröße teilbare Elementzahl: numel = %1, Gruppe = %2</translation>
    </message>
    <message>
        <source>HQQ dequantize: codes, scales and zero points do not match the group size</source>
        <translation>HQQ-Dequantisierung: Codes, Skalen und Nullpunkte passen nicht zur Gruppengröße</translation>
    </message>
    <message>
        <source>passes must be 0..1000, got %1</source>
        <translation>passes muss 0..1000 sein, erhalten: %1</translation>
    </message>
    <message>
        <source>rank must be ≥ 0, got %1</source>
        <translation>rank muss ≥ 0 sein, erhalten: %1</translation>
    </message>
    <message>
        <source>compensator_group must be ≥ 1, got %1</source>
        <translation>compensator_group muss ≥ 1 sein, erhalten: %1</translation>
    </message>
    <message>
        <source>seed must be ≥ 0, got %1</source>
        <translation>seed muss ≥ 0 sein, erhalten: %1</translation>
    </message>
    <message>
        <source>power_iters must be 0..100, got %1</source>
        <translation>power_iters muss 0..100 sein, erhalten: %1</translation>
    </message>
    <message>
        <source>MiLo needs a finite tensor (the SVD of the residual is undefined with NaN/Inf)</source>
        <translation>MiLo braucht einen endlichen Tensor (die SVD des Residuums ist mit NaN/Inf undefiniert)</translation>
    </message>
    <message>
        <source>an NVFP4 result needs its global scale</source>
        <translation>ein NVFP4-Ergebnis braucht seine globale Skala</translation>
    </message>
    <message>
        <source>a progressive stage must be an &quot;int&quot; or &quot;fp8&quot; spec, got &quot;%1&quot;</source>
        <translation>eine progressive Stufe muss eine „int“- oder „fp8“-Spezifikation sein, erhalten: „%1“</translation>
    </message>
    <message>
        <source>spec field &apos;%1&apos; must be a spec object</source>
        <translation>das Spezifikationsfeld „%1“ muss ein Spezifikationsobjekt sein</translation>
    </message>
    <message>
        <source>a spec needs a &quot;method&quot; string (%1)</source>
        <translation>eine Spezifikation braucht eine „method“-Zeichenkette (%1)</translation>
    </message>
    <message>
        <source>unknown quantization method &apos;%1&apos; (known: %2)</source>
        <translation>unbekannte Quantisierungsmethode „%1“ (bekannt: %2)</translation>
    </message>
    <message>
        <source>cannot quantize %1 data</source>
        <translation>%1-Daten können nicht quantisiert werden</translation>
    </message>
    <message>
        <source>K = %1 is not divisible by the group size %2 (strict: ragged groups refused)</source>
        <translation>K = %1 ist nicht durch die Gruppengröße %2 teilbar (strikt: ungleiche Gruppen abgelehnt)</translation>
    </message>
    <message>
        <source>block size must be ≥ 1</source>
        <translation>die Blockgröße muss ≥ 1 sein</translation>
    </message>
    <message>
        <source>shape %1x%2 is not divisible by the block size %3 (strict: ragged blocks refused)</source>
        <translation>die Form %1×%2 ist nicht durch die Blockgröße %3 teilbar (strikt: ungleiche Blöcke abgelehnt)</translation>
    </message>
    <message>
        <source>block size must be ≥ 1, got %1</source>
        <translation>die Blockgröße muss ≥ 1 sein, erhalten: %1</translation>
    </message>
    <message>
        <source>channel axis must be 0 or 1, got %1</source>
        <translation>die Kanalachse muss 0 oder 1 sein, erhalten: %1</translation>
    </message>
    <message>
        <source>scale_rule &apos;max&apos; applies to symmetric quantization only</source>
        <translation>scale_rule „max“ gilt nur für symmetrische Quantisierung</translation>
    </message>
    <message>
        <source>FP8 granularity must be tensor, channel or block</source>
        <translation>die FP8-Granularität muss tensor, channel oder block sein</translation>
    </message>
    <message>
        <source>a %1 spec must be a JSON object</source>
        <translation>eine %1-Spezifikation muss ein JSON-Objekt sein</translation>
    </message>
    <message>
        <source>unknown field &apos;%1&apos; in a %2 spec</source>
        <translation>unbekanntes Feld „%1“ in einer %2-Spezifikation</translation>
    </message>
    <message>
        <source>spec method is %1, expected &quot;%2&quot;</source>
        <translation>die Spezifikationsmethode ist %1, erwartet: „%2“</translation>
    </message>
    <message>
        <source>spec field &apos;%1&apos; must be an integer</source>
        <translation>das Spezifikationsfeld „%1“ muss eine ganze Zahl sein</translation>
    </message>
    <message>
        <source>spec field &apos;%1&apos; is %2, out of range</source>
        <translation>das Spezifikationsfeld „%1“ ist %2, außerhalb des Bereichs</translation>
    </message>
    <message>
        <source>spec field &apos;%1&apos; must be true or false</source>
        <translation>das Spezifikationsfeld „%1“ muss true oder false sein</translation>
    </message>
    <message>
        <source>spec field &apos;%1&apos; must be a number</source>
        <translation>das Spezifikationsfeld „%1“ muss eine Zahl sein</translation>
    </message>
    <message>
        <source>spec field &apos;%1&apos; must be a string</source>
        <translation>das Spezifikationsfeld „%1“ muss eine Zeichenkette sein</translation>
    </message>
    <message>
        <source>spec field &apos;%1&apos; is &apos;%2&apos;, expected %3</source>
        <translation>das Spezifikationsfeld „%1“ ist „%2“, erwartet: %3</translation>
    </message>
    <message>
        <source>group size must be in 1..%1, got %2</source>
        <translation>die Gruppengröße muss in 1..%1 liegen, erhalten: %2</translation>
    </message>
    <message>
        <source>the CPU backend was handed a tensor of another device</source>
        <translation>das CPU-Backend erhielt einen Tensor eines anderen Geräts</translation>
    </message>
    <message>
        <source>all options (the reference implementation)</source>
        <translation>alle Optionen (die Referenzimplementierung)</translation>
    </message>
    <message>
        <source>--objective must be auto, weight or output, not &apos;%1&apos;</source>
        <translation>--objective muss auto, weight oder output sein, nicht „%1“</translation>
    </message>
    <message>
        <source>weight error, as asked</source>
        <translation>Gewichtsfehler, wie verlangt</translation>
    </message>
    <message>
        <source>weight error: the scan had no capture</source>
        <translation>Gewichtsfehler: der Scan hatte keine Aufzeichnung</translation>
    </message>
    <message>
        <source>%1 module(s) have runs without an output-aware error (%2): the capture lacks them or the scan had none</source>
        <translation>%1 Modul(e) haben Läufe ohne ausgabebezogenen Fehler (%2): der Aufzeichnung fehlen sie, oder der Scan hatte keine</translation>
    </message>
    <message>
        <source>--objective output: %1</source>
        <translation>--objective output nicht möglich: %1</translation>
    </message>
    <message>
        <source>weight error: %1</source>
        <translation>Gewichtsfehler: %1</translation>
    </message>
    <message>
        <source>the scan&apos;s capture</source>
        <translation>die Aufzeichnung des Scans</translation>
    </message>
    <message>
        <source>output-aware error on the capture %1</source>
        <translation>ausgabebezogener Fehler auf der Aufzeichnung %1</translation>
    </message>
    <message>
        <source>not a scan report (its first line has no &quot;quantscope_scan&quot;)</source>
        <translation>kein Scan-Bericht (seine erste Zeile hat kein „quantscope_scan“)</translation>
    </message>
    <message>
        <source>a module line lacks &quot;module&quot; or &quot;status&quot;</source>
        <translation>einer Modulzeile fehlt „module“ oder „status“</translation>
    </message>
    <message>
        <source>module &apos;%1&apos; has no shape</source>
        <translation>Modul „%1“ hat keine Form</translation>
    </message>
    <message>
        <source>the weights give no weight for module &apos;%1&apos;</source>
        <translation>die Gewichtungen geben kein Gewicht für Modul „%1“ an</translation>
    </message>
    <message>
        <source>no candidate %1 can store</source>
        <translation>kein Kandidat, den %1 speichern kann</translation>
    </message>
    <message>
        <source>%1: no run with metrics</source>
        <translation>%1: kein Lauf mit Metriken</translation>
    </message>
    <message>
        <source>cannot open the scan report</source>
        <translation>der Scan-Bericht kann nicht geöffnet werden</translation>
    </message>
    <message>
        <source>line %1 is not JSON (a torn line of an unfinished scan? resume the scan first)</source>
        <translation>Zeile %1 ist kein JSON (eine abgerissene Zeile eines unfertigen Scans? setzen Sie den Scan zuerst fort)</translation>
    </message>
    <message>
        <source>the scan report is empty</source>
        <translation>der Scan-Bericht ist leer</translation>
    </message>
    <message>
        <source>cannot open the weights file</source>
        <translation>die Gewichtungsdatei kann nicht geöffnet werden</translation>
    </message>
    <message>
        <source>weights must be an object {&quot;module&quot;: weight}</source>
        <translation>die Gewichtungen müssen ein Objekt {&quot;module&quot;: weight} sein</translation>
    </message>
    <message>
        <source>the weight of &apos;%1&apos; is not a finite number ≥ 0</source>
        <translation>das Gewicht von „%1“ ist keine endliche Zahl ≥ 0</translation>
    </message>
    <message>
        <source>a choice needs one candidate per module</source>
        <translation>eine Auswahl braucht einen Kandidaten pro Modul</translation>
    </message>
    <message>
        <source>module &apos;%1&apos; has no candidate %2</source>
        <translation>Modul „%1“ hat keinen Kandidaten %2</translation>
    </message>
    <message>
        <source>no module has candidates to choose from</source>
        <translation>kein Modul hat Kandidaten zur Auswahl</translation>
    </message>
    <message>
        <source>module &apos;%1&apos; has no candidates</source>
        <translation>Modul „%1“ hat keine Kandidaten</translation>
    </message>
    <message>
        <source>module &apos;%1&apos; has more than 65535 candidates</source>
        <translation>Modul „%1“ hat mehr als 65535 Kandidaten</translation>
    </message>
    <message>
        <source>module &apos;%1&apos; has a candidate with a non-finite error</source>
        <translation>Modul „%1“ hat einen Kandidaten mit nicht endlichem Fehler</translation>
    </message>
    <message>
        <source>budget too small: the smallest candidate of every module needs %1 bytes (%2 MB), the budget is %3 bytes (%4 MB)</source>
        <translation>Budget zu klein: der kleinste Kandidat jedes Moduls braucht %1 Byte (%2 MB), das Budget ist %3 Byte (%4 MB)</translation>
    </message>
    <message>
        <source>budget: %1 (every other module)</source>
        <translation>Budget: %1 (alle übrigen Module)</translation>
    </message>
    <message>
        <source>%1 must be a positive decimal number, not &apos;%2&apos;</source>
        <translation>%1 muss eine positive Dezimalzahl sein, nicht „%2“</translation>
    </message>
    <message>
        <source>%1 has more significant digits than a budget can use: &apos;%2&apos;</source>
        <translation>%1 hat mehr signifikante Stellen, als ein Budget nutzen kann: „%2“</translation>
    </message>
    <message>
        <source>%1 is larger than 2^64 - 1 bytes</source>
        <translation>%1 ist größer als 2^64 − 1 Byte</translation>
    </message>
    <message>
        <source>the budget in MB</source>
        <translation>das Budget in MB</translation>
    </message>
    <message>
        <source>bits per weight</source>
        <translation>Bit pro Gewicht</translation>
    </message>
    <message>
        <source>the budget in bits per weight</source>
        <translation>das Budget in Bit pro Gewicht</translation>
    </message>
    <message>
        <source>the fused modules %1 (%2 members) share no spec with measurements: a serving engine needs one scheme for all of them; scan them with the same specs</source>
        <translation>die fusionierten Module %1 (%2 Mitglieder) haben keine gemeinsame gemessene Spezifikation: eine Serving-Engine braucht ein Schema für alle; scannen Sie sie mit denselben Spezifikationen</translation>
    </message>
    <message>
        <source>the sweep needs a 2-D weight</source>
        <translation>der Durchlauf braucht ein 2-D-Gewicht</translation>
    </message>
    <message>
        <source>no rotated points: %1</source>
        <translation>keine rotierten Punkte: %1</translation>
    </message>
    <message>
        <source>not a format sweep: %1</source>
        <translation>kein Formatdurchlauf: %1</translation>
    </message>
    <message>
        <source>not run</source>
        <translation>nicht ausgeführt</translation>
    </message>
    <message>
        <source>compare takes two checkpoints or two scan reports; this one is a checkpoint and the other is not</source>
        <translation>Vergleichen nimmt zwei Checkpoints oder zwei Scan-Berichte; dieser ist ein Checkpoint und der andere nicht</translation>
    </message>
    <message>
        <source>compare takes two checkpoints or two scan reports; this one is a scan report and the other is not</source>
        <translation>Vergleichen nimmt zwei Checkpoints oder zwei Scan-Berichte; dieser ist ein Scan-Bericht und der andere nicht</translation>
    </message>
    <message>
        <source>the two sides&apos; weights differ in shape: %1 vs %2</source>
        <translation>die Gewichte beider Seiten unterscheiden sich in der Form: %1 gegen %2</translation>
    </message>
    <message>
        <source>the reference has no module of this name</source>
        <translation>die Referenz hat kein Modul dieses Namens</translation>
    </message>
    <message>
        <source>the reference&apos;s weight differs in shape: %1</source>
        <translation>das Gewicht der Referenz hat eine andere Form: %1</translation>
    </message>
    <message>
        <source>no module of this name</source>
        <translation>kein Modul dieses Namens</translation>
    </message>
    <message>
        <source>line %1 of the scan report is not a JSON object</source>
        <translation>Zeile %1 des Scan-Berichts ist kein JSON-Objekt</translation>
    </message>
    <message>
        <source>not a scan report (no quantscope_scan header)</source>
        <translation>kein Scan-Bericht (kein quantscope_scan-Kopf)</translation>
    </message>
    <message>
        <source>line %1 of the scan report names no module</source>
        <translation>Zeile %1 des Scan-Berichts nennt kein Modul</translation>
    </message>
    <message>
        <source>empty scan report</source>
        <translation>leerer Scan-Bericht</translation>
    </message>
    <message>
        <source>not scanned (%1)</source>
        <translation>nicht gescannt (%1)</translation>
    </message>
    <message>
        <source>--reference applies to checkpoints; a scan report carries its errors already</source>
        <translation>--reference gilt für Checkpoints; ein Scan-Bericht enthält seine Fehler bereits</translation>
    </message>
    <message>
        <source>the reports name different checkpoints: %1 and %2</source>
        <translation>die Berichte nennen verschiedene Checkpoints: %1 und %2</translation>
    </message>
    <message>
        <source>%1 modules were scanned on neither side (excluded or unmatched)</source>
        <translation>%1 Module wurden auf keiner Seite gescannt (ausgeschlossen oder ohne Gegenstück)</translation>
    </message>
    <message>
        <source>delta error (A - B)</source>
        <translation>Fehlerdifferenz (A − B)</translation>
    </message>
    <message>
        <source>error A</source>
        <translation>Fehler A</translation>
    </message>
    <message>
        <source>error B</source>
        <translation>Fehler B</translation>
    </message>
    <message>
        <source>codes differing</source>
        <translation>abweichende Codes</translation>
    </message>
    <message>
        <source>no reference: W is B&apos;s reconstruction</source>
        <translation>keine Referenz: W ist die Rekonstruktion von B</translation>
    </message>
    <message>
        <source>the sphere codebook needs d ≥ 3, got %1</source>
        <translation>das Sphären-Codebuch braucht d ≥ 3, erhalten: %1</translation>
    </message>
    <message>
        <source>a codebook has 16 levels</source>
        <translation>ein Codebuch hat 16 Stufen</translation>
    </message>
    <message>
        <source>%1 of %2 head %3 holds %4 at token %5: the lab needs finite caches</source>
        <translation>%1 von %2, Kopf %3, enthält %4 bei Token %5: das Labor braucht endliche Caches</translation>
    </message>
    <message>
        <source>the queries</source>
        <translation>die Abfragen</translation>
    </message>
    <message>
        <source>K and V must be [heads, tokens, head_dim]; K is %1, V %2</source>
        <translation>K und V müssen [heads, tokens, head_dim] sein; K ist %1, V %2</translation>
    </message>
    <message>
        <source>K %1 and V %2 disagree</source>
        <translation>K %1 und V %2 passen nicht zusammen</translation>
    </message>
    <message>
        <source>K/V shape %1 has an empty dimension</source>
        <translation>die K/V-Form %1 hat eine leere Dimension</translation>
    </message>
    <message>
        <source>queries %1 must be [heads, queries, %2]</source>
        <translation>die Abfragen %1 müssen [heads, queries, %2] sein</translation>
    </message>
    <message>
        <source>query heads (%1) must be a positive multiple of the KV heads (%2)</source>
        <translation>die Abfrageköpfe (%1) müssen ein positives Vielfaches der KV-Köpfe (%2) sein</translation>
    </message>
    <message>
        <source>%1 queries but only %2 keys: query i needs the keys up to position i</source>
        <translation>%1 Abfragen, aber nur %2 Schlüssel: Abfrage i braucht die Schlüssel bis Position i</translation>
    </message>
    <message>
        <source>shape differs from the first layer&apos;s (K/V %1×%2×%3, queries %4×%5)</source>
        <translation>die Form weicht von der der ersten Schicht ab (K/V %1×%2×%3, Abfragen %4×%5)</translation>
    </message>
    <message>
        <source>%1: no K/V cache in the capture; skipped</source>
        <translation>%1: kein K/V-Cache in der Aufzeichnung; übersprungen</translation>
    </message>
    <message>
        <source>the capture holds no K/V cache (capture with --kv-tokens &gt; 0)</source>
        <translation>die Aufzeichnung enthält keinen K/V-Cache (mit --kv-tokens &gt; 0 aufzeichnen)</translation>
    </message>
    <message>
        <source>no queries in the capture: attention-score and output errors are omitted</source>
        <translation>keine Abfragen in der Aufzeichnung: Fehler der Attention-Scores und der Ausgabe entfallen</translation>
    </message>
    <message>
        <source>the capture holds pre-RoPE queries: score errors use them as stored</source>
        <translation>die Aufzeichnung enthält Abfragen vor RoPE: die Score-Fehler verwenden sie wie gespeichert</translation>
    </message>
    <message>
        <source>metadata `seq` is &apos;%1&apos;: expected a positive integer (tokens per sequence)</source>
        <translation>die Metadaten `seq` sind „%1“: erwartet wird eine positive ganze Zahl (Tokens pro Sequenz)</translation>
    </message>
    <message>
        <source>no K/V arrays: expected tensors `k` and `v` (or `keys`, `values`) of [layers, heads, tokens, head_dim], or per-layer `&lt;prefix&gt;.k` and `&lt;prefix&gt;.v` [heads, tokens, head_dim]</source>
        <translation>keine K/V-Arrays: erwartet werden die Tensoren `k` und `v` (oder `keys`, `values`) mit [layers, heads, tokens, head_dim] oder pro Schicht `&lt;prefix&gt;.k` und `&lt;prefix&gt;.v` [heads, tokens, head_dim]</translation>
    </message>
    <message>
        <source>no queries in the file: attention-score and output errors are omitted</source>
        <translation>keine Abfragen in der Datei: Fehler der Attention-Scores und der Ausgabe entfallen</translation>
    </message>
    <message>
        <source>%1 is %2: expected [layers, heads, tokens, head_dim] or [heads, tokens, head_dim]</source>
        <translation>%1 ist %2: erwartet [layers, heads, tokens, head_dim] oder [heads, tokens, head_dim]</translation>
    </message>
    <message>
        <source>k, v and q disagree on the number of layers (k %1, v %2%3)</source>
        <translation>k, v und q sind sich über die Zahl der Schichten uneinig (k %1, v %2%3)</translation>
    </message>
    <message>
        <source>no layers</source>
        <translation>keine Schichten</translation>
    </message>
    <message>
        <source>layer %1</source>
        <translation>Schicht %1</translation>
    </message>
    <message>
        <source>no queries: attention-score and output errors are omitted</source>
        <translation>keine Abfragen: Fehler der Attention-Scores und der Ausgabe entfallen</translation>
    </message>
    <message>
        <source>no K/V arrays: the .npz needs arrays `k` and `v` (or `keys`, `values`), optionally `q` (or `queries`), each [layers, heads, tokens, head_dim] or [heads, tokens, head_dim]</source>
        <translation>keine K/V-Arrays: die .npz braucht die Arrays `k` und `v` (oder `keys`, `values`), optional `q` (oder `queries`), jeweils [layers, heads, tokens, head_dim] oder [heads, tokens, head_dim]</translation>
    </message>
    <message>
        <source>a K/V .npy holds one array [2, layers, heads, tokens, head_dim] (K then V); this one is %1</source>
        <translation>eine K/V-.npy enthält ein Array [2, layers, heads, tokens, head_dim] (erst K, dann V); diese hat %1</translation>
    </message>
    <message>
        <source>not a K/V file: the KV lab reads a capture or a .safetensors, .npz or .npy file</source>
        <translation>keine K/V-Datei: das KV-Labor liest eine Aufzeichnung oder eine .safetensors-, .npz- oder .npy-Datei</translation>
    </message>
    <message>
        <source>no layers to study</source>
        <translation>keine Schichten zu untersuchen</translation>
    </message>
    <message>
        <source>head_dim %1 is odd: no Walsh–Hadamard rotation exists for it, so the rotated schemes, the c sweep and the codebooks cannot run</source>
        <translation>head_dim %1 ist ungerade: dafür gibt es keine Walsh–Hadamard-Rotation, daher können die rotierten Schemata, der c-Durchlauf und die Codebücher nicht laufen</translation>
    </message>
    <message>
        <source>head_dim %1 is not a power of two: the rotation works in blocks of %2 (the theoretical codebook assumes a rotation over all %3 channels)</source>
        <translation>head_dim %1 ist keine Zweierpotenz: die Rotation arbeitet in Blöcken zu %2 (das theoretische Codebuch nimmt eine Rotation über alle %3 Kanäle an)</translation>
    </message>
    <message>
        <source>the device failed (%1): the rest computed on the CPU</source>
        <translation>das Gerät ist fehlgeschlagen (%1): der Rest wurde auf der CPU berechnet</translation>
    </message>
    <message>
        <source>the c grid needs lo &gt; 0 and at least two points</source>
        <translation>das c-Gitter braucht lo &gt; 0 und mindestens zwei Punkte</translation>
    </message>
    <message>
        <source>attention errors use %1 of the %2 captured queries per head, evenly spaced (--score-queries)</source>
        <translation>die Attention-Fehler verwenden %1 der %2 aufgezeichneten Abfragen pro Kopf, gleichmäßig verteilt (--score-queries)</translation>
    </message>
    <message>
        <source>KV scheme &apos;%1&apos;: %2 (accepted: bf16, fp8, fp8-head, fp8-vllm, fp8-unit, codebook, codebook-layer, codebook-shared, codebook-norot, constopt[:c=C|c=fit][,unrounded], mxfp4, nvfp4, int4)</source>
        <translation>KV-Schema „%1“: %2 (akzeptiert: bf16, fp8, fp8-head, fp8-vllm, fp8-unit, codebook, codebook-layer, codebook-shared, codebook-norot, constopt[:c=C|c=fit][,unrounded], mxfp4, nvfp4, int4)</translation>
    </message>
    <message>
        <source>unknown scheme</source>
        <translation>unbekanntes Schema</translation>
    </message>
    <message>
        <source>only constopt takes options</source>
        <translation>nur constopt nimmt Optionen</translation>
    </message>
    <message>
        <source>c must be a number in (0, 10), got &apos;%1&apos;</source>
        <translation>c muss eine Zahl in (0, 10) sein, erhalten: „%1“</translation>
    </message>
    <message>
        <source>unknown constopt option &apos;%1&apos;</source>
        <translation>unbekannte constopt-Option „%1“</translation>
    </message>
    <message>
        <source>head_dim %1 is odd: the %2 scheme needs a Walsh–Hadamard rotation over a power-of-two block</source>
        <translation>head_dim %1 ist ungerade: das Schema %2 braucht eine Walsh–Hadamard-Rotation über einen Block mit Zweierpotenz-Größe</translation>
    </message>
    <message>
        <source>the codebook scheme needs 16 levels</source>
        <translation>das Codebuch-Schema braucht 16 Stufen</translation>
    </message>
    <message>
        <source>unknown GEMM format &apos;%1&apos; (bf16, fp8, fp8-rowwise, int8, w4a16, w4a8-int8, w4a8-fp8, w8a8-fp8, mxfp4, nvfp4 or w3a16-milo)</source>
        <translation>unbekanntes GEMM-Format „%1“ (bf16, fp8, fp8-rowwise, int8, w4a16, w4a8-int8, w4a8-fp8, w8a8-fp8, mxfp4, nvfp4 oder w3a16-milo)</translation>
    </message>
    <message>
        <source>GEMM format &apos;%1&apos; given twice</source>
        <translation>GEMM-Format „%1“ doppelt angegeben</translation>
    </message>
    <message>
        <source>M sweep: &apos;%1&apos; is not an integer in [1, 1048576]</source>
        <translation>M-Durchlauf: „%1“ ist keine ganze Zahl in [1, 1048576]</translation>
    </message>
    <message>
        <source>GEMM bench: no format</source>
        <translation>GEMM-Messung: kein Format</translation>
    </message>
    <message>
        <source>GEMM bench: empty M sweep</source>
        <translation>GEMM-Messung: leerer M-Durchlauf</translation>
    </message>
    <message>
        <source>GEMM bench: M must be ≥ 1, got %1</source>
        <translation>GEMM-Messung: M muss ≥ 1 sein, erhalten: %1</translation>
    </message>
    <message>
        <source>GEMM bench: N and K must be in [1, 1048576], got %1×%2</source>
        <translation>GEMM-Messung: N und K müssen in [1, 1048576] liegen, erhalten: %1×%2</translation>
    </message>
    <message>
        <source>GEMM bench: at least 20 repeats, got %1</source>
        <translation>GEMM-Messung: mindestens 20 Wiederholungen, erhalten: %1</translation>
    </message>
    <message>
        <source>GEMM bench: warm-up must be ≥ 0</source>
        <translation>GEMM-Messung: das Aufwärmen muss ≥ 0 sein</translation>
    </message>
    <message>
        <source>GEMM bench: experts must be in [1, 1024], got %1</source>
        <translation>GEMM-Messung: die Expertenzahl muss in [1, 1024] liegen, erhalten: %1</translation>
    </message>
    <message>
        <source>GEMM bench: the W4 group size must be even and divide K = %1 (0: per channel), got %2</source>
        <translation>GEMM-Messung: die W4-Gruppengröße muss gerade sein und K = %1 teilen (0: pro Kanal), erhalten: %2</translation>
    </message>
    <message>
        <source>GEMM bench: MoE mode (experts &gt; 1) times bf16 and fp8 only, not %1</source>
        <translation>GEMM-Messung: der MoE-Modus (experts &gt; 1) misst nur bf16 und fp8, nicht %1</translation>
    </message>
    <message>
        <source>GEMM bench: the INT4 paths need an even K (two codes a byte), K = %1</source>
        <translation>GEMM-Messung: die INT4-Pfade brauchen ein gerades K (zwei Codes pro Byte), K = %1</translation>
    </message>
    <message>
        <source>GEMM bench: %1 needs K a multiple of its block (%2), K = %3</source>
        <translation>GEMM-Messung: %1 braucht K als Vielfaches seines Blocks (%2), K = %3</translation>
    </message>
    <message>
        <source>GEMM bench: w3a16-milo needs K a multiple of 256 and a rank in [0, 256], got K = %1, rank %2</source>
        <translation>GEMM-Messung: w3a16-milo braucht K als Vielfaches von 256 und einen Rang in [0, 256], K = %1, Rang %2</translation>
    </message>
    <message>
        <source>GEMM bench on the CPU: %1 experts of %2×%3 need more than 2 GiB of FP32 weights</source>
        <translation>GEMM-Messung auf der CPU: %1 Experten zu %2×%3 brauchen mehr als 2 GiB FP32-Gewichte</translation>
    </message>
    <message>
        <source>GEMM bench on the GPU: %1 needs K a multiple of 16, K = %2</source>
        <translation>GEMM-Messung auf der GPU: %1 braucht K als Vielfaches von 16, K = %2</translation>
    </message>
    <message>
        <source>Eigen FP32 GEMM standing in for the requested formats</source>
        <translation>Eigen-FP32-GEMM stellvertretend für die angefragten Formate</translation>
    </message>
    <message>
        <source>%1: GPU only</source>
        <translation>%1: nur GPU</translation>
    </message>
    <message>
        <source>MoE: %1 experts, one GEMM each (no batched launch on the CPU)</source>
        <translation>MoE: %1 Experten, je ein GEMM (kein gebündelter Start auf der CPU)</translation>
    </message>
    <message>
        <source>%1 repeats (capped at %2 s)</source>
        <translation>%1 Wiederholungen (begrenzt auf %2 s)</translation>
    </message>
    <message>
        <source>CPU GEMM produced a non-finite value</source>
        <translation>das CPU-GEMM ergab einen nicht endlichen Wert</translation>
    </message>
    <message>
        <source>GEMM bench result: bound &apos;%1&apos; is neither memory nor compute</source>
        <translation>GEMM-Messergebnis: Grenze „%1“ ist weder memory noch compute</translation>
    </message>
    <message>
        <source>GEMM bench result: bf16_paired_us is negative</source>
        <translation>GEMM-Messergebnis: bf16_paired_us ist negativ</translation>
    </message>
    <message>
        <source>GEMM bench result: %1</source>
        <translation>GEMM-Messergebnis: %1</translation>
    </message>
    <message>
        <source>GEMM peaks: copy_gbps must be positive</source>
        <translation>GEMM-Spitzenwerte: copy_gbps muss positiv sein</translation>
    </message>
    <message>
        <source>GEMM peaks: the %1 peak must be positive</source>
        <translation>GEMM-Spitzenwerte: der %1-Spitzenwert muss positiv sein</translation>
    </message>
    <message>
        <source>GEMM peaks: %1</source>
        <translation>GEMM-Spitzenwerte: %1</translation>
    </message>
    <message>
        <source>%1 peak to %2 M=%3</source>
        <translation>%1-Spitzenwert auf %2 M=%3</translation>
    </message>
    <message>
        <source>copy GB/s to %1 M=%2</source>
        <translation>Kopier-GB/s auf %1 M=%2</translation>
    </message>
    <message>
        <source>raised to the points that beat the measured ceiling (%1): their operands stay in cache, which the large copy and the peak GEMMs do not</source>
        <translation>angehoben auf die Punkte, die die gemessene Obergrenze übertreffen (%1): ihre Operanden bleiben im Cache, was bei der großen Kopie und den Spitzen-GEMMs nicht der Fall ist</translation>
    </message>
    <message>
        <source>above the measured ceiling (operands in cache): the ceiling was raised to it</source>
        <translation>über der gemessenen Obergrenze (Operanden im Cache): die Obergrenze wurde darauf angehoben</translation>
    </message>
    <message>
        <source>cached (%1)</source>
        <translation>zwischengespeichert (%1)</translation>
    </message>
    <message>
        <source>GEMM peaks cache: no path (neither XDG_CONFIG_HOME nor HOME is set)</source>
        <translation>Cache der GEMM-Spitzenwerte: kein Pfad (weder XDG_CONFIG_HOME noch HOME ist gesetzt)</translation>
    </message>
    <message>
        <source>GEMM peaks cache: cannot write %1</source>
        <translation>Cache der GEMM-Spitzenwerte: %1 kann nicht geschrieben werden</translation>
    </message>
    <message>
        <source>GEMM peaks cache: cannot rename to %1</source>
        <translation>Cache der GEMM-Spitzenwerte: Umbenennen in %1 nicht möglich</translation>
    </message>
    <message>
        <source>cpu: %1 threads, Eigen %2</source>
        <translation>CPU: %1 Threads, Eigen %2</translation>
    </message>
    <message>
        <source>CPU copy check failed</source>
        <translation>die CPU-Kopierprüfung ist fehlgeschlagen</translation>
    </message>
    <message>
        <source>memcpy of 64 MiB (best of 5; read + write bytes); FP32 Eigen GEMM best of 1024³, 2048³</source>
        <translation>memcpy von 64 MiB (beste von 5; gelesene + geschriebene Bytes); FP32-Eigen-GEMM, beste von 1024³, 2048³</translation>
    </message>
    <message>
        <source>GEMM peaks: memory level %1 needs a positive GB/s</source>
        <translation>GEMM-Spitzenwerte: Speicherebene %1 braucht positive GB/s</translation>
    </message>
    <message>
        <source>cache-resident (%1): X, W and Y (%2 KiB) fit in %3; its ceiling %4 GB/s</source>
        <translation>im Cache (%1): X, W und Y (%2 KiB) passen in %3; dessen Obergrenze %4 GB/s</translation>
    </message>
    <message>
        <source>%1 GB/s to %2 M=%3</source>
        <translation>%1-GB/s auf %2 M=%3</translation>
    </message>
    <message>
        <source>CPU bandwidth check failed</source>
        <translation>die CPU-Bandbreitenprüfung ist fehlgeschlagen</translation>
    </message>
    <message>
        <source>per memory level the better of a memcpy (read + write bytes) and a read at a working set of %1 (best of 5 trials, DRAM of 10; one thread); FP32 Eigen GEMM best of 256³, 512³, 1024³, 2048³</source>
        <translation>je Speicherebene das Bessere aus einem memcpy (gelesene + geschriebene Bytes) und einem Lesen bei einer Arbeitsmenge von %1 (beste von 5 Versuchen, DRAM von 10; ein Thread); FP32-Eigen-GEMM, beste von 256³, 512³, 1024³, 2048³</translation>
    </message>
    <message>
        <source>activation K = %1 (shape %2) does not match the weight&apos;s K = %3 (shape %4)</source>
        <translation>das K der Aktivierung = %1 (Form %2) passt nicht zum K des Gewichts = %3 (Form %4)</translation>
    </message>
    <message>
        <source>the quantized weight does not match the weight&apos;s shape</source>
        <translation>das quantisierte Gewicht passt nicht zur Form des Gewichts</translation>
    </message>
    <message>
        <source>cannot decode %1 activations</source>
        <translation>%1-Aktivierungen können nicht dekodiert werden</translation>
    </message>
    <message>
        <source>a two-stage weight with an asymmetric first stage has no low-precision GEMM path</source>
        <translation>ein zweistufiges Gewicht mit asymmetrischer erster Stufe hat keinen GEMM-Pfad mit niedriger Präzision</translation>
    </message>
    <message>
        <source>W·A8-int8 needs integer weight codes (method int, or progressive with an int stage 2); got %1</source>
        <translation>W·A8-int8 braucht ganzzahlige Gewichtscodes (Methode int oder progressive mit int als Stufe 2); erhalten: %1</translation>
    </message>
    <message>
        <source>method %1 has no FP8 GEMM path</source>
        <translation>die Methode %1 hat keinen FP8-GEMM-Pfad</translation>
    </message>
    <message>
        <source>E5M2 weights have no FP8 E4M3 GEMM path</source>
        <translation>E5M2-Gewichte haben keinen FP8-E4M3-GEMM-Pfad</translation>
    </message>
    <message>
        <source>INT%1 weight codes are not exact in E4M3 (use int8-token activations)</source>
        <translation>INT%1-Gewichtscodes sind in E4M3 nicht exakt (verwenden Sie int8-token-Aktivierungen)</translation>
    </message>
    <message>
        <source>%1: activations quantized on the CPU</source>
        <translation>%1: Aktivierungen auf der CPU quantisiert</translation>
    </message>
    <message>
        <source>%1: the GEMM computed on the CPU</source>
        <translation>%1: das GEMM auf der CPU berechnet</translation>
    </message>
    <message>
        <source>the weight&apos;s scale runs differ between rows</source>
        <translation>die Skalenabschnitte des Gewichts unterscheiden sich zwischen den Zeilen</translation>
    </message>
    <message>
        <source>measured</source>
        <translation>gemessen</translation>
    </message>
    <message>
        <source>MoE scale health, %1 layers × %2 experts (per layer, one mark per expert: &apos;.&apos; healthy, &apos;X&apos; NaN/Inf/zero scales, &apos;?&apos; no scale, &apos;-&apos; absent), %3 bad: %4</source>
        <translation>Zustand der MoE-Skalen, %1 Schichten × %2 Experten (pro Schicht ein Zeichen pro Experte: „.“ gesund, „X“ Skalen NaN/Inf/null, „?“ keine Skala, „-“ fehlt), %3 schlecht: %4</translation>
    </message>
    <message>
        <source>layer %1, expert %2: %3 of %4 scales are NaN, Inf or zero (first in %5)</source>
        <translation>Schicht %1, Experte %2: %3 von %4 Skalen sind NaN, Inf oder null (zuerst in %5)</translation>
    </message>
    <message>
        <source>a llama2.c checkpoint: dim %1, %2 layers, %3 heads, vocabulary %4</source>
        <translation>ein llama2.c-Checkpoint: dim %1, %2 Schichten, %3 Köpfe, Vokabular %4</translation>
    </message>
    <message>
        <source>convert it to a Hugging Face safetensors checkpoint (llama2.c&apos;s export.py --version -1 writes one; or load it in Python and save it with safetensors.torch.save_file)</source>
        <translation>wandeln Sie ihn in einen Hugging-Face-safetensors-Checkpoint um (export.py --version -1 von llama2.c schreibt einen; oder laden Sie ihn in Python und speichern Sie ihn mit safetensors.torch.save_file)</translation>
    </message>
    <message>
        <source>a GGUF file (llama.cpp)</source>
        <translation>eine GGUF-Datei (llama.cpp)</translation>
    </message>
    <message>
        <source>Quantscope reads GGUF v2 and v3 itself: `quantscope-cli doctor FILE` says where this one breaks</source>
        <translation>Quantscope liest GGUF v2 und v3 selbst: `quantscope-cli doctor FILE` zeigt, wo diese Datei fehlerhaft ist</translation>
    </message>
    <message>
        <source>a llama2.c checkpoint (export.py version 1 or 2)</source>
        <translation>ein llama2.c-Checkpoint (export.py Version 1 oder 2)</translation>
    </message>
    <message>
        <source>convert it to a Hugging Face safetensors checkpoint (llama2.c&apos;s export.py --version -1 writes one)</source>
        <translation>wandeln Sie ihn in einen Hugging-Face-safetensors-Checkpoint um (export.py --version -1 von llama2.c schreibt einen)</translation>
    </message>
    <message>
        <source>a PyTorch checkpoint (torch.save, ZIP format)</source>
        <translation>ein PyTorch-Checkpoint (torch.save, ZIP-Format)</translation>
    </message>
    <message>
        <source>convert it to safetensors: safetensors.torch.save_file(torch.load(path), &quot;model.safetensors&quot;)</source>
        <translation>wandeln Sie ihn in safetensors um: safetensors.torch.save_file(torch.load(path), &quot;model.safetensors&quot;)</translation>
    </message>
    <message>
        <source>a ZIP of .npy arrays (a NumPy .npz archive)</source>
        <translation>ein ZIP aus .npy-Arrays (ein NumPy-.npz-Archiv)</translation>
    </message>
    <message>
        <source>rename it to .npz and open it again</source>
        <translation>benennen Sie sie in .npz um und öffnen Sie sie erneut</translation>
    </message>
    <message>
        <source>a ZIP archive</source>
        <translation>ein ZIP-Archiv</translation>
    </message>
    <message>
        <source>unpack it and open the .safetensors file or checkpoint folder inside</source>
        <translation>entpacken Sie es und öffnen Sie die enthaltene .safetensors-Datei oder den Checkpoint-Ordner</translation>
    </message>
    <message>
        <source>a Python pickle (PyTorch&apos;s legacy torch.save format, pickle protocol %1)</source>
        <translation>ein Python-Pickle (das alte torch.save-Format von PyTorch, Pickle-Protokoll %1)</translation>
    </message>
    <message>
        <source>shape entry %1 is negative</source>
        <translation>der shape-Eintrag %1 ist negativ</translation>
    </message>
    <message>
        <source>data_offsets entry %1 is negative</source>
        <translation>der data_offsets-Eintrag %1 ist negativ</translation>
    </message>
    <message>
        <source>a number</source>
        <translation>eine Zahl</translation>
    </message>
    <message>
        <source>%1 entry %2 is not an integer that fits in 64 bits</source>
        <translation>der %1-Eintrag %2 ist keine ganze Zahl, die in 64 Bit passt</translation>
    </message>
    <message>
        <source>unknown dtype &quot;%1&quot;: not one of the 22 safetensors dtypes</source>
        <translation>unbekannter dtype „%1“: keiner der 22 safetensors-dtypes</translation>
    </message>
    <message>
        <source>a string</source>
        <translation>eine Zeichenkette</translation>
    </message>
    <message>
        <source>binary data</source>
        <translation>Binärdaten</translation>
    </message>
    <message>
        <source>an object</source>
        <translation>ein Objekt</translation>
    </message>
    <message>
        <source>duplicate key &quot;__metadata__&quot; in the header</source>
        <translation>doppelter Schlüssel „__metadata__“ im Header</translation>
    </message>
    <message>
        <source>duplicate key in the header: tensor names must be unique</source>
        <translation>doppelter Schlüssel im Header: Tensornamen müssen eindeutig sein</translation>
    </message>
    <message>
        <source>duplicate key &quot;%1&quot; in __metadata__</source>
        <translation>doppelter Schlüssel „%1“ in __metadata__</translation>
    </message>
    <message>
        <source>unknown key &quot;%1&quot; in the tensor&apos;s entry (an entry has exactly &quot;dtype&quot;, &quot;shape&quot; and &quot;data_offsets&quot;)</source>
        <translation>unbekannter Schlüssel „%1“ im Eintrag des Tensors (ein Eintrag hat genau „dtype“, „shape“ und „data_offsets“)</translation>
    </message>
    <message>
        <source>duplicate key &quot;%1&quot; in the tensor&apos;s entry</source>
        <translation>doppelter Schlüssel „%1“ im Eintrag des Tensors</translation>
    </message>
    <message>
        <source>the tensor&apos;s entry has no &quot;%1&quot;</source>
        <translation>der Eintrag des Tensors hat kein „%1“</translation>
    </message>
    <message>
        <source>an array</source>
        <translation>ein Array</translation>
    </message>
    <message>
        <source>data_offsets has %1 entries; it must be [BEGIN, END]</source>
        <translation>data_offsets hat %1 Einträge; es muss [BEGIN, END] sein</translation>
    </message>
    <message>
        <source>the header is not valid JSON: %1</source>
        <translation>der Header ist kein gültiges JSON: %1</translation>
    </message>
    <message>
        <source>shape entry %1 does not fit in a signed 64-bit integer</source>
        <translation>der shape-Eintrag %1 passt nicht in eine vorzeichenbehaftete 64-Bit-Ganzzahl</translation>
    </message>
    <message>
        <source>data_offsets has more than two entries; it must be [BEGIN, END]</source>
        <translation>data_offsets hat mehr als zwei Einträge; es muss [BEGIN, END] sein</translation>
    </message>
    <message>
        <source>the header must be a JSON object, not %1</source>
        <translation>der Header muss ein JSON-Objekt sein, nicht %1</translation>
    </message>
    <message>
        <source>__metadata__ must be an object of string to string, not %1</source>
        <translation>__metadata__ muss ein Objekt von Zeichenkette zu Zeichenkette sein, nicht %1</translation>
    </message>
    <message>
        <source>a tensor&apos;s entry must be a JSON object, not %1</source>
        <translation>der Eintrag eines Tensors muss ein JSON-Objekt sein, nicht %1</translation>
    </message>
    <message>
        <source>__metadata__ value of key &quot;%1&quot; is %2; metadata values must be strings</source>
        <translation>der __metadata__-Wert des Schlüssels „%1“ ist %2; Metadatenwerte müssen Zeichenketten sein</translation>
    </message>
    <message>
        <source>&quot;dtype&quot; must be a string, not %1</source>
        <translation>„dtype“ muss eine Zeichenkette sein, nicht %1</translation>
    </message>
    <message>
        <source>&quot;shape&quot; must be an array of non-negative integers, not %1</source>
        <translation>„shape“ muss ein Array nichtnegativer ganzer Zahlen sein, nicht %1</translation>
    </message>
    <message>
        <source>&quot;data_offsets&quot; must be an array of two non-negative integers, not %1</source>
        <translation>„data_offsets“ muss ein Array aus zwei nichtnegativen ganzen Zahlen sein, nicht %1</translation>
    </message>
    <message>
        <source>shape entries must be non-negative integers, not %1</source>
        <translation>shape-Einträge müssen nichtnegative ganze Zahlen sein, nicht %1</translation>
    </message>
    <message>
        <source>data_offsets entries must be non-negative integers, not %1</source>
        <translation>data_offsets-Einträge müssen nichtnegative ganze Zahlen sein, nicht %1</translation>
    </message>
    <message>
        <source>unexpected %1</source>
        <translation>unerwartet: %1</translation>
    </message>
    <message>
        <source>the file is empty; a safetensors file starts with an 8-byte little-endian header length</source>
        <translation>die Datei ist leer; eine safetensors-Datei beginnt mit einer 8-Byte-Headerlänge (Little Endian)</translation>
    </message>
    <message>
        <source>the file is %1 bytes, shorter than the 8-byte header length every safetensors file starts with</source>
        <translation>die Datei hat %1 Bytes und ist kürzer als die 8-Byte-Headerlänge, mit der jede safetensors-Datei beginnt</translation>
    </message>
    <message>
        <source>the header length field says %1 bytes, more than the limit of %2 bytes</source>
        <translation>das Headerlängenfeld nennt %1 Bytes, mehr als die Grenze von %2 Bytes</translation>
    </message>
    <message>
        <source>the header length field says %1 bytes, but only %2 bytes follow it in the file</source>
        <translation>das Headerlängenfeld nennt %1 Bytes, aber in der Datei folgen nur %2 Bytes</translation>
    </message>
    <message>
        <source>the header is not valid UTF-8 (byte %1)</source>
        <translation>der Header ist kein gültiges UTF-8 (Byte %1)</translation>
    </message>
    <message>
        <source>the header is empty; it must be a JSON object starting with &apos;{&apos;</source>
        <translation>der Header ist leer; er muss ein JSON-Objekt sein, das mit „{“ beginnt</translation>
    </message>
    <message>
        <source>the header must be a JSON object starting with &apos;{&apos;, but its first non-space byte is &apos;%1&apos; (%2)</source>
        <translation>der Header muss ein JSON-Objekt sein, das mit „{“ beginnt, aber sein erstes Nicht-Leerzeichen-Byte ist „%1“ (%2)</translation>
    </message>
    <message>
        <source>the header&apos;s JSON is nested deeper than %1 levels (a valid header needs 3)</source>
        <translation>das JSON des Headers ist tiefer als %1 Ebenen verschachtelt (ein gültiger Header braucht 3)</translation>
    </message>
    <message>
        <source>the header is not valid JSON</source>
        <translation>der Header ist kein gültiges JSON</translation>
    </message>
    <message>
        <source>data_offsets %1 are reversed: END is before BEGIN</source>
        <translation>data_offsets %1 sind vertauscht: END liegt vor BEGIN</translation>
    </message>
    <message>
        <source>the element count of shape %1 overflows 64 bits</source>
        <translation>die Elementanzahl der Form %1 überläuft 64 Bit</translation>
    </message>
    <message>
        <source>the size in bits of %1 elements of %2 overflows 64 bits</source>
        <translation>die Größe in Bit von %1 Elementen vom Typ %2 überläuft 64 Bit</translation>
    </message>
    <message>
        <source>misaligned sub-byte span: %1 elements of %2 (%3 bits each) are %4 bits, not a whole number of bytes</source>
        <translation>nicht ausgerichteter Sub-Byte-Bereich: %1 Elemente vom Typ %2 (je %3 Bit) sind %4 Bit, keine ganze Zahl von Bytes</translation>
    </message>
    <message>
        <source>data_offsets %1 span %2 bytes, but %3 elements of %4 with shape %5 need %6</source>
        <translation>data_offsets %1 umfassen %2 Bytes, aber %3 Elemente vom Typ %4 mit der Form %5 brauchen %6</translation>
    </message>
    <message>
        <source>data_offsets %1 reach past the end of the data, which is %2 bytes (file of %3 bytes, data from byte %4); the file is truncated or the offsets are wrong</source>
        <translation>data_offsets %1 reichen über das Ende der Daten hinaus, die %2 Bytes lang sind (Datei mit %3 Bytes, Daten ab Byte %4); die Datei ist abgeschnitten oder die Offsets sind falsch</translation>
    </message>
    <message>
        <source>data_offsets %1 overlap tensor &apos;%2&apos; (data_offsets %3)</source>
        <translation>data_offsets %1 überlappen den Tensor „%2“ (data_offsets %3)</translation>
    </message>
    <message>
        <source>gap of %1 bytes before this tensor: data bytes [%2, %3) belong to no tensor (previous tensor &apos;%4&apos; ends at %5)</source>
        <translation>Lücke von %1 Bytes vor diesem Tensor: die Datenbytes [%2, %3) gehören zu keinem Tensor (der vorige Tensor „%4“ endet bei %5)</translation>
    </message>
    <message>
        <source>gap of %1 bytes before this tensor: data bytes [%2, %3) belong to no tensor (the first tensor must start at 0)</source>
        <translation>Lücke von %1 Bytes vor diesem Tensor: die Datenbytes [%2, %3) gehören zu keinem Tensor (der erste Tensor muss bei 0 beginnen)</translation>
    </message>
    <message>
        <source>%1; spans must follow each other without holes (open in lenient mode to accept)</source>
        <translation>%1; die Bereiche müssen lückenlos aufeinander folgen (im nachsichtigen Modus öffnen, um das zu akzeptieren)</translation>
    </message>
    <message>
        <source>%1 trailing bytes after the last tensor (tensor data ends at byte %2, the file at %3)</source>
        <translation>%1 überzählige Bytes nach dem letzten Tensor (die Tensordaten enden bei Byte %2, die Datei bei %3)</translation>
    </message>
    <message>
        <source>%1; the data must end where the last tensor ends (open in lenient mode to accept)</source>
        <translation>%1; die Daten müssen dort enden, wo der letzte Tensor endet (im nachsichtigen Modus öffnen, um das zu akzeptieren)</translation>
    </message>
    <message>
        <source>no such tensor in the file</source>
        <translation>kein solcher Tensor in der Datei</translation>
    </message>
    <message>
        <source>the tensor&apos;s span lies outside this file</source>
        <translation>der Bereich des Tensors liegt außerhalb dieser Datei</translation>
    </message>
    <message>
        <source>a tensor name is empty</source>
        <translation>ein Tensorname ist leer</translation>
    </message>
    <message>
        <source>&quot;__metadata__&quot; is reserved and cannot name a tensor</source>
        <translation>„__metadata__“ ist reserviert und kann keinen Tensor benennen</translation>
    </message>
    <message>
        <source>the tensor name is not valid UTF-8</source>
        <translation>der Tensorname ist kein gültiges UTF-8</translation>
    </message>
    <message>
        <source>the tensor name occurs twice; names must be unique</source>
        <translation>der Tensorname kommt zweimal vor; Namen müssen eindeutig sein</translation>
    </message>
    <message>
        <source>dtype %1 has no safetensors equivalent</source>
        <translation>dtype %1 hat keine Entsprechung in safetensors</translation>
    </message>
    <message>
        <source>the tensor has no data</source>
        <translation>der Tensor hat keine Daten</translation>
    </message>
    <message>
        <source>the tensor&apos;s size in bits overflows 64 bits</source>
        <translation>die Größe des Tensors in Bit überläuft 64 Bit</translation>
    </message>
    <message>
        <source>misaligned sub-byte span: %1 elements of %2 are not a whole number of bytes</source>
        <translation>nicht ausgerichteter Sub-Byte-Bereich: %1 Elemente vom Typ %2 sind keine ganze Zahl von Bytes</translation>
    </message>
    <message>
        <source>a strided view of a sub-byte dtype cannot be written</source>
        <translation>eine Ansicht mit Schrittweiten eines Sub-Byte-dtypes kann nicht geschrieben werden</translation>
    </message>
    <message>
        <source>__metadata__ entry &quot;%1&quot; is not valid UTF-8</source>
        <translation>der __metadata__-Eintrag „%1“ ist kein gültiges UTF-8</translation>
    </message>
    <message>
        <source>cannot open the file</source>
        <translation>die Datei kann nicht geöffnet werden</translation>
    </message>
    <message>
        <source>cannot stat the file</source>
        <translation>die Dateiinformationen können nicht gelesen werden (stat)</translation>
    </message>
    <message>
        <source>not a regular file</source>
        <translation>keine reguläre Datei</translation>
    </message>
    <message>
        <source>the file is too large to map on this system</source>
        <translation>die Datei ist zu groß, um sie auf diesem System einzublenden</translation>
    </message>
    <message>
        <source>cannot map the file</source>
        <translation>die Datei kann nicht eingeblendet werden (mmap)</translation>
    </message>
    <message>
        <source>not a file path</source>
        <translation>kein Dateipfad</translation>
    </message>
    <message>
        <source>cannot create a temporary file in folder &apos;%1&apos;</source>
        <translation>im Ordner „%1“ kann keine temporäre Datei angelegt werden</translation>
    </message>
    <message>
        <source>write after commit</source>
        <translation>Schreiben nach dem Abschluss</translation>
    </message>
    <message>
        <source>cannot write temporary file &apos;%1&apos;</source>
        <translation>die temporäre Datei „%1“ kann nicht geschrieben werden</translation>
    </message>
    <message>
        <source>cannot write temporary file &apos;%1&apos;: no progress</source>
        <translation>die temporäre Datei „%1“ kann nicht geschrieben werden: kein Fortschritt</translation>
    </message>
    <message>
        <source>commit of a file that failed earlier</source>
        <translation>Abschluss einer Datei, die zuvor fehlgeschlagen ist</translation>
    </message>
    <message>
        <source>cannot flush temporary file &apos;%1&apos;</source>
        <translation>die temporäre Datei „%1“ kann nicht auf den Datenträger geschrieben werden</translation>
    </message>
    <message>
        <source>cannot close temporary file &apos;%1&apos;</source>
        <translation>die temporäre Datei „%1“ kann nicht geschlossen werden</translation>
    </message>
    <message>
        <source>cannot rename &apos;%1&apos; over the target</source>
        <translation>„%1“ kann nicht über das Ziel umbenannt werden</translation>
    </message>
    <message>
        <source>cannot flush folder &apos;%1&apos;</source>
        <translation>der Ordner „%1“ kann nicht auf den Datenträger geschrieben werden</translation>
    </message>
    <message>
        <source>cannot read the file</source>
        <translation>die Datei kann nicht gelesen werden</translation>
    </message>
    <message>
        <source>%1 (config.json ignored)</source>
        <translation>%1 (config.json ignoriert)</translation>
    </message>
    <message>
        <source>the index must be a JSON object with a &quot;weight_map&quot;</source>
        <translation>der Index muss ein JSON-Objekt mit einer „weight_map“ sein</translation>
    </message>
    <message>
        <source>the index has no &quot;weight_map&quot;</source>
        <translation>der Index hat keine „weight_map“</translation>
    </message>
    <message>
        <source>&quot;weight_map&quot; must be an object of tensor name to shard file name</source>
        <translation>„weight_map“ muss ein Objekt von Tensorname zu Shard-Dateiname sein</translation>
    </message>
    <message>
        <source>the shard of the tensor must be a file name (a string)</source>
        <translation>der Shard des Tensors muss ein Dateiname sein (eine Zeichenkette)</translation>
    </message>
    <message>
        <source>shard &quot;%1&quot; is not a plain file name in the index&apos;s folder; shards outside the folder are refused</source>
        <translation>der Shard „%1“ ist kein einfacher Dateiname im Ordner des Index; Shards außerhalb des Ordners werden abgelehnt</translation>
    </message>
    <message>
        <source>shard &quot;%1&quot; listed in %2 does not exist</source>
        <translation>der in %2 aufgeführte Shard „%1“ existiert nicht</translation>
    </message>
    <message>
        <source>the tensor is in two shards: &quot;%1&quot; and &quot;%2&quot;</source>
        <translation>der Tensor ist in zwei Shards: „%1“ und „%2“</translation>
    </message>
    <message>
        <source>the index places the tensor in shard &quot;%1&quot;, which does not contain it</source>
        <translation>der Index legt den Tensor in den Shard „%1“, der ihn nicht enthält</translation>
    </message>
    <message>
        <source>the tensor is in the shard but not in %1; it is ignored</source>
        <translation>der Tensor ist im Shard, aber nicht in %1; er wird ignoriert</translation>
    </message>
    <message>
        <source>cannot list the folder: %1</source>
        <translation>der Ordner kann nicht aufgelistet werden: %1</translation>
    </message>
    <message>
        <source>the folder holds no .safetensors file and no %1</source>
        <translation>der Ordner enthält keine .safetensors-Datei und kein %1</translation>
    </message>
    <message>
        <source>the folder holds %1 .safetensors files and no %2, so which one to open is ambiguous: %3 (open one of them directly)</source>
        <translation>der Ordner enthält %1 .safetensors-Dateien und kein %2, daher ist unklar, welche zu öffnen ist: %3 (öffnen Sie eine davon direkt)</translation>
    </message>
    <message>
        <source>sharded index</source>
        <translation>Shard-Index</translation>
    </message>
    <message>
        <source>safetensors folder</source>
        <translation>safetensors-Ordner</translation>
    </message>
    <message>
        <source>safetensors file</source>
        <translation>safetensors-Datei</translation>
    </message>
    <message>
        <source>no such file or folder</source>
        <translation>keine solche Datei und kein solcher Ordner</translation>
    </message>
    <message>
        <source>no reader opens this path</source>
        <translation>kein Leser öffnet diesen Pfad</translation>
    </message>
    <message>
        <source>no such tensor in the checkpoint</source>
        <translation>kein solcher Tensor im Checkpoint</translation>
    </message>
    <message>
        <source>the header is not a Python dict (it must start with &apos;{&apos;)</source>
        <translation>der Header ist kein Python-Dict (er muss mit „{“ beginnen)</translation>
    </message>
    <message>
        <source>unexpected text after the header dict</source>
        <translation>unerwarteter Text nach dem Header-Dict</translation>
    </message>
    <message>
        <source>the header nests too deeply</source>
        <translation>der Header ist zu tief verschachtelt</translation>
    </message>
    <message>
        <source>the header dict ends early</source>
        <translation>das Header-Dict endet zu früh</translation>
    </message>
    <message>
        <source>unexpected character &apos;%1&apos; in the header dict</source>
        <translation>unerwartetes Zeichen „%1“ im Header-Dict</translation>
    </message>
    <message>
        <source>a header dict key is not a string</source>
        <translation>ein Schlüssel des Header-Dicts ist keine Zeichenkette</translation>
    </message>
    <message>
        <source>expected &apos;:&apos; after a key in the header dict</source>
        <translation>nach einem Schlüssel im Header-Dict wird „:“ erwartet</translation>
    </message>
    <message>
        <source>duplicate key &apos;%1&apos; in the header dict</source>
        <translation>doppelter Schlüssel „%1“ im Header-Dict</translation>
    </message>
    <message>
        <source>expected &apos;,&apos; or &apos;}&apos; in the header dict</source>
        <translation>im Header-Dict wird „,“ oder „}“ erwartet</translation>
    </message>
    <message>
        <source>expected &apos;,&apos; or &apos;%1&apos; in a sequence</source>
        <translation>in einer Folge wird „,“ oder „%1“ erwartet</translation>
    </message>
    <message>
        <source>unterminated string in the header dict</source>
        <translation>nicht abgeschlossene Zeichenkette im Header-Dict</translation>
    </message>
    <message>
        <source>malformed integer in the header dict</source>
        <translation>fehlerhafte ganze Zahl im Header-Dict</translation>
    </message>
    <message>
        <source>integer in the header dict overflows 64 bits</source>
        <translation>eine ganze Zahl im Header-Dict überläuft 64 Bit</translation>
    </message>
    <message>
        <source>unsupported dtype descr &apos;%1&apos;</source>
        <translation>nicht unterstützter dtype-descr „%1“</translation>
    </message>
    <message>
        <source>object arrays (pickled Python objects, descr &apos;%1&apos;) are refused</source>
        <translation>Objekt-Arrays (gepickelte Python-Objekte, descr „%1“) werden abgelehnt</translation>
    </message>
    <message>
        <source>complex arrays (descr &apos;%1&apos;) are refused</source>
        <translation>komplexe Arrays (descr „%1“) werden abgelehnt</translation>
    </message>
    <message>
        <source>unicode string arrays (descr &apos;%1&apos;) are refused</source>
        <translation>Unicode-Zeichenketten-Arrays (descr „%1“) werden abgelehnt</translation>
    </message>
    <message>
        <source>byte string arrays (descr &apos;%1&apos;) are refused</source>
        <translation>Bytezeichenketten-Arrays (descr „%1“) werden abgelehnt</translation>
    </message>
    <message>
        <source>void/structured arrays (descr &apos;%1&apos;) are refused</source>
        <translation>void-/strukturierte Arrays (descr „%1“) werden abgelehnt</translation>
    </message>
    <message>
        <source>datetime/timedelta arrays (descr &apos;%1&apos;) are refused</source>
        <translation>datetime-/timedelta-Arrays (descr „%1“) werden abgelehnt</translation>
    </message>
    <message>
        <source>not a .npy array: the magic string \x93NUMPY is missing</source>
        <translation>kein .npy-Array: die magische Zeichenfolge \x93NUMPY fehlt</translation>
    </message>
    <message>
        <source>unsupported .npy format version %1.%2 (1.0, 2.0 and 3.0 are read)</source>
        <translation>nicht unterstützte .npy-Formatversion %1.%2 (gelesen werden 1.0, 2.0 und 3.0)</translation>
    </message>
    <message>
        <source>the header length field is cut off by the end of the data</source>
        <translation>das Headerlängenfeld wird vom Ende der Daten abgeschnitten</translation>
    </message>
    <message>
        <source>the header length %1 runs past the end of the data (%2 bytes follow the length field)</source>
        <translation>die Headerlänge %1 reicht über das Ende der Daten hinaus (nach dem Längenfeld folgen %2 Bytes)</translation>
    </message>
    <message>
        <source>non-ASCII byte in a version %1.0 header (only 3.0 headers are UTF-8)</source>
        <translation>Nicht-ASCII-Byte in einem Header der Version %1.0 (nur 3.0-Header sind UTF-8)</translation>
    </message>
    <message>
        <source>unexpected key &apos;%1&apos; in the header dict (exactly descr, fortran_order and shape are allowed)</source>
        <translation>unerwarteter Schlüssel „%1“ im Header-Dict (erlaubt sind genau descr, fortran_order und shape)</translation>
    </message>
    <message>
        <source>the header dict lacks the key &apos;%1&apos;</source>
        <translation>dem Header-Dict fehlt der Schlüssel „%1“</translation>
    </message>
    <message>
        <source>structured arrays (a list of fields as descr) are refused</source>
        <translation>strukturierte Arrays (eine Feldliste als descr) werden abgelehnt</translation>
    </message>
    <message>
        <source>&apos;descr&apos; must be a dtype string</source>
        <translation>„descr“ muss eine dtype-Zeichenkette sein</translation>
    </message>
    <message>
        <source>&apos;fortran_order&apos; must be True or False</source>
        <translation>„fortran_order“ muss True oder False sein</translation>
    </message>
    <message>
        <source>&apos;shape&apos; must be a tuple of integers</source>
        <translation>„shape“ muss ein Tupel ganzer Zahlen sein</translation>
    </message>
    <message>
        <source>&apos;shape&apos; must be a tuple of non-negative integers</source>
        <translation>„shape“ muss ein Tupel nichtnegativer ganzer Zahlen sein</translation>
    </message>
    <message>
        <source>the array&apos;s byte size overflows 64 bits</source>
        <translation>die Bytegröße des Arrays überläuft 64 Bit</translation>
    </message>
    <message>
        <source>the data is shorter than the header says: shape %1 of &apos;%2&apos; needs %3 bytes, %4 are present</source>
        <translation>die Daten sind kürzer als der Header angibt: die Form %1 von „%2“ braucht %3 Bytes, vorhanden sind %4</translation>
    </message>
    <message>
        <source>%1 trailing bytes after the array data (shape %2 of &apos;%3&apos; ends at byte %4)</source>
        <translation>%1 überzählige Bytes nach den Arraydaten (die Form %2 von „%3“ endet bei Byte %4)</translation>
    </message>
    <message>
        <source>%1; --lenient accepts them</source>
        <translation>%1; --lenient akzeptiert sie</translation>
    </message>
    <message>
        <source>%1 (ignored)</source>
        <translation>%1 (ignoriert)</translation>
    </message>
    <message>
        <source>not a safetensors / npy / npz file (this looks like %1): %2</source>
        <translation>keine safetensors-, npy- oder npz-Datei (sie sieht aus wie %1): %2</translation>
    </message>
    <message>
        <source>capture metadata lacks &apos;%1&apos;</source>
        <translation>den Metadaten der Aufzeichnung fehlt „%1“</translation>
    </message>
    <message>
        <source>capture metadata &apos;%1&apos; must be a positive integer, not &apos;%2&apos;</source>
        <translation>das Metadatum „%1“ der Aufzeichnung muss eine positive ganze Zahl sein, nicht „%2“</translation>
    </message>
    <message>
        <source>capture metadata &apos;%1&apos; must be a JSON object</source>
        <translation>das Metadatum „%1“ der Aufzeichnung muss ein JSON-Objekt sein</translation>
    </message>
    <message>
        <source>capture metadata &apos;%1&apos; is not JSON: %2</source>
        <translation>das Metadatum „%1“ der Aufzeichnung ist kein JSON: %2</translation>
    </message>
    <message>
        <source>capture entry &apos;%1&apos;: &apos;%2&apos; must be a %3 integer</source>
        <translation>Aufzeichnungseintrag „%1“: „%2“ muss eine %3-Ganzzahl sein</translation>
    </message>
    <message>
        <source>capture lacks this statistics tensor</source>
        <translation>der Aufzeichnung fehlt dieser Statistiktensor</translation>
    </message>
    <message>
        <source>capture statistics must be F32, not %1</source>
        <translation>die Statistiken der Aufzeichnung müssen F32 sein, nicht %1</translation>
    </message>
    <message>
        <source>capture tensor has shape %1, expected %2</source>
        <translation>der Aufzeichnungstensor hat die Form %1, erwartet: %2</translation>
    </message>
    <message>
        <source>not a Quantscope capture: its safetensors metadata has no &quot;format&quot;: &quot;quantscope-capture&quot; (write one with `quantscope-cli capture`)</source>
        <translation>keine Quantscope-Aufzeichnung: ihre safetensors-Metadaten haben kein &quot;format&quot;: &quot;quantscope-capture&quot; (schreiben Sie eine mit `quantscope-cli capture`)</translation>
    </message>
    <message>
        <source>capture version &apos;%1&apos; is not supported (this build reads version 1)</source>
        <translation>die Aufzeichnungsversion „%1“ wird nicht unterstützt (dieser Build liest Version 1)</translation>
    </message>
    <message>
        <source>capture metadata &apos;modules&apos; lists no module</source>
        <translation>das Metadatum „modules“ der Aufzeichnung nennt kein Modul</translation>
    </message>
    <message>
        <source>capture entry &apos;%1&apos; must be a JSON object</source>
        <translation>der Aufzeichnungseintrag „%1“ muss ein JSON-Objekt sein</translation>
    </message>
    <message>
        <source>capture modules sharing statistics &apos;%1&apos; disagree on in_features (%2 vs %3)</source>
        <translation>Aufzeichnungsmodule mit gemeinsamen Statistiken „%1“ widersprechen sich bei in_features (%2 gegenüber %3)</translation>
    </message>
    <message>
        <source>capture attention entry &apos;%1&apos; must be a JSON object</source>
        <translation>der Attention-Eintrag „%1“ der Aufzeichnung muss ein JSON-Objekt sein</translation>
    </message>
    <message>
        <source>capture attention entry &apos;%1&apos;: rope must be &quot;post&quot; or &quot;pre&quot;</source>
        <translation>Attention-Eintrag „%1“ der Aufzeichnung: rope muss &quot;post&quot; oder &quot;pre&quot; sein</translation>
    </message>
    <message>
        <source>the capture has no statistics for module &apos;%1&apos;</source>
        <translation>die Aufzeichnung hat keine Statistiken für das Modul „%1“</translation>
    </message>
    <message>
        <source>the capture has no attention block &apos;%1&apos;</source>
        <translation>die Aufzeichnung hat keinen Attention-Block „%1“</translation>
    </message>
    <message>
        <source>%1: the checkpoint&apos;s weight is %2, the capture saw %3x%4 (out x in)</source>
        <translation>%1: das Gewicht des Checkpoints ist %2, die Aufzeichnung sah %3×%4 (aus × ein)</translation>
    </message>
    <message>
        <source>the capture has no statistics for module &apos;%1&apos; (was it captured from another model?)</source>
        <translation>die Aufzeichnung hat keine Statistiken für das Modul „%1“ (wurde sie von einem anderen Modell aufgezeichnet?)</translation>
    </message>
    <message>
        <source>module &apos;%1&apos;: the weight is %2 but the capture saw %3x%4 (out x in)</source>
        <translation>Modul „%1“: das Gewicht ist %2, aber die Aufzeichnung sah %3×%4 (aus × ein)</translation>
    </message>
    <message>
        <source>the file ends inside %1: %2 bytes needed at offset %3, %4 left (truncated?)</source>
        <translation>die Datei endet innerhalb von %1: %2 Bytes bei Offset %3 nötig, %4 übrig (abgeschnitten?)</translation>
    </message>
    <message>
        <source>%1: the string&apos;s length field says %2 bytes, but only %3 bytes follow in the file</source>
        <translation>%1: das Längenfeld der Zeichenkette nennt %2 Bytes, aber in der Datei folgen nur %3 Bytes</translation>
    </message>
    <message>
        <source>%1: a BOOL must be 0 or 1, not %2</source>
        <translation>%1: ein BOOL muss 0 oder 1 sein, nicht %2</translation>
    </message>
    <message>
        <source>the file is %1 bytes, shorter than the 4-byte GGUF magic</source>
        <translation>die Datei hat %1 Bytes und ist kürzer als die 4-Byte-GGUF-Kennung</translation>
    </message>
    <message>
        <source>the magic</source>
        <translation>die Kennung</translation>
    </message>
    <message>
        <source>bad magic: a GGUF file starts with the bytes &quot;GGUF&quot;</source>
        <translation>falsche Kennung: eine GGUF-Datei beginnt mit den Bytes „GGUF“</translation>
    </message>
    <message>
        <source>the version</source>
        <translation>die Version</translation>
    </message>
    <message>
        <source>GGUF version 1 (32-bit counts, before August 2023) is not read; convert the file with a current llama.cpp</source>
        <translation>GGUF-Version 1 (32-Bit-Zähler, vor August 2023) wird nicht gelesen; konvertieren Sie die Datei mit einem aktuellen llama.cpp</translation>
    </message>
    <message>
        <source>unknown GGUF version %1 (versions 2 and 3 are read)</source>
        <translation>unbekannte GGUF-Version %1 (gelesen werden die Versionen 2 und 3)</translation>
    </message>
    <message>
        <source>the tensor count</source>
        <translation>die Tensoranzahl</translation>
    </message>
    <message>
        <source>the metadata count</source>
        <translation>die Metadatenanzahl</translation>
    </message>
    <message>
        <source>the tensor count %1 cannot fit in a file of %2 bytes (each tensor info takes at least 24 bytes)</source>
        <translation>die Tensoranzahl %1 passt nicht in eine Datei mit %2 Bytes (jede Tensorinfo braucht mindestens 24 Bytes)</translation>
    </message>
    <message>
        <source>the metadata count %1 cannot fit in a file of %2 bytes (each key-value takes at least 12 bytes)</source>
        <translation>die Metadatenanzahl %1 passt nicht in eine Datei mit %2 Bytes (jedes Schlüssel-Wert-Paar braucht mindestens 12 Bytes)</translation>
    </message>
    <message>
        <source>a metadata key</source>
        <translation>ein Metadatenschlüssel</translation>
    </message>
    <message>
        <source>metadata key %1 is empty</source>
        <translation>der Metadatenschlüssel %1 ist leer</translation>
    </message>
    <message>
        <source>duplicate metadata key &quot;%1&quot;</source>
        <translation>doppelter Metadatenschlüssel „%1“</translation>
    </message>
    <message>
        <source>a metadata value type</source>
        <translation>ein Metadatenwerttyp</translation>
    </message>
    <message>
        <source>metadata key &quot;%1&quot; has unknown value type %2</source>
        <translation>der Metadatenschlüssel „%1“ hat den unbekannten Werttyp %2</translation>
    </message>
    <message>
        <source>an array&apos;s element type</source>
        <translation>der Elementtyp eines Arrays</translation>
    </message>
    <message>
        <source>an array&apos;s length</source>
        <translation>die Länge eines Arrays</translation>
    </message>
    <message>
        <source>metadata key &quot;%1&quot;: array element type %2 (nested arrays are not read)</source>
        <translation>Metadatenschlüssel „%1“: Array-Elementtyp %2 (verschachtelte Arrays werden nicht gelesen)</translation>
    </message>
    <message>
        <source>metadata key &quot;%1&quot;: array element type %2 is unknown</source>
        <translation>Metadatenschlüssel „%1“: der Array-Elementtyp %2 ist unbekannt</translation>
    </message>
    <message>
        <source>metadata key &quot;%1&quot;: an array of %2 %3 cannot fit in the %4 bytes left in the file</source>
        <translation>Metadatenschlüssel „%1“: ein Array aus %2 %3 passt nicht in die %4 verbleibenden Bytes der Datei</translation>
    </message>
    <message>
        <source>an array element</source>
        <translation>ein Array-Element</translation>
    </message>
    <message>
        <source>a metadata value</source>
        <translation>ein Metadatenwert</translation>
    </message>
    <message>
        <source>general.alignment must be a UINT32, not %1</source>
        <translation>general.alignment muss ein UINT32 sein, nicht %1</translation>
    </message>
    <message>
        <source>general.alignment %1 is not a power of two</source>
        <translation>general.alignment %1 ist keine Zweierpotenz</translation>
    </message>
    <message>
        <source>a tensor name</source>
        <translation>ein Tensorname</translation>
    </message>
    <message>
        <source>tensor %1 has an empty name</source>
        <translation>Tensor %1 hat einen leeren Namen</translation>
    </message>
    <message>
        <source>the tensor name is %1 bytes; ggml allows at most 63 (GGML_MAX_NAME − 1)</source>
        <translation>der Tensorname hat %1 Bytes; ggml erlaubt höchstens 63 (GGML_MAX_NAME − 1)</translation>
    </message>
    <message>
        <source>duplicate tensor name</source>
        <translation>doppelter Tensorname</translation>
    </message>
    <message>
        <source>a tensor&apos;s dimension count</source>
        <translation>die Dimensionsanzahl eines Tensors</translation>
    </message>
    <message>
        <source>the tensor has %1 dimensions; ggml allows at most %2</source>
        <translation>der Tensor hat %1 Dimensionen; ggml erlaubt höchstens %2</translation>
    </message>
    <message>
        <source>a tensor&apos;s dimensions</source>
        <translation>die Dimensionen eines Tensors</translation>
    </message>
    <message>
        <source>dimension %1 is %2, more than a signed 64-bit integer holds</source>
        <translation>Dimension %1 ist %2, mehr als eine vorzeichenbehaftete 64-Bit-Ganzzahl fasst</translation>
    </message>
    <message>
        <source>the element count of dimensions %1 overflows 63 bits</source>
        <translation>die Elementanzahl der Dimensionen %1 überläuft 63 Bit</translation>
    </message>
    <message>
        <source>a tensor&apos;s type</source>
        <translation>der Typ eines Tensors</translation>
    </message>
    <message>
        <source>unknown ggml type %1</source>
        <translation>unbekannter ggml-Typ %1</translation>
    </message>
    <message>
        <source>the innermost dimension %1 is not a multiple of %2&apos;s block size %3</source>
        <translation>die innerste Dimension %1 ist kein Vielfaches der Blockgröße %3 von %2</translation>
    </message>
    <message>
        <source>the size in bytes of %1 %2 overflows 64 bits</source>
        <translation>die Größe in Bytes von %1 %2 überläuft 64 Bit</translation>
    </message>
    <message>
        <source>a tensor&apos;s data offset</source>
        <translation>der Datenoffset eines Tensors</translation>
    </message>
    <message>
        <source>the data offset %1 is not a multiple of the alignment %2</source>
        <translation>der Datenoffset %1 ist kein Vielfaches der Ausrichtung %2</translation>
    </message>
    <message>
        <source>the file ends before the data section (at offset %1)</source>
        <translation>die Datei endet vor dem Datenabschnitt (bei Offset %1)</translation>
    </message>
    <message>
        <source>the tensor&apos;s data [%1, %2 + %3) lies beyond the end of the file (the data section holds %4 bytes)</source>
        <translation>die Daten des Tensors [%1, %2 + %3) liegen hinter dem Dateiende (der Datenabschnitt umfasst %4 Bytes)</translation>
    </message>
    <message>
        <source>the tensor&apos;s data overlaps that of &quot;%1&quot;</source>
        <translation>die Daten des Tensors überlappen die von „%1“</translation>
    </message>
    <message>
        <source>metadata key &quot;%1&quot; lies outside the file</source>
        <translation>der Metadatenschlüssel „%1“ liegt außerhalb der Datei</translation>
    </message>
    <message>
        <source>the ggml type %1 is not decoded to FP32 (not in gguf.quants.dequantize)</source>
        <translation>der ggml-Typ %1 wird nicht nach FP32 dekodiert (nicht in gguf.quants.dequantize)</translation>
    </message>
    <message>
        <source>zlib cannot start inflating</source>
        <translation>zlib kann das Entpacken nicht starten</translation>
    </message>
    <message>
        <source>the deflate stream is corrupt (zlib: %1)</source>
        <translation>der Deflate-Strom ist beschädigt (zlib: %1)</translation>
    </message>
    <message>
        <source>not a ZIP archive: %1 bytes cannot hold an end-of-central-directory record</source>
        <translation>kein ZIP-Archiv: %1 Bytes können keinen End-of-Central-Directory-Eintrag fassen</translation>
    </message>
    <message>
        <source>not a ZIP archive: no end-of-central-directory record (signature PK\5\6) in the last 64 KiB</source>
        <translation>kein ZIP-Archiv: kein End-of-Central-Directory-Eintrag (Signatur PK\5\6) in den letzten 64 KiB</translation>
    </message>
    <message>
        <source>multi-disk ZIP archives are not supported</source>
        <translation>mehrteilige ZIP-Archive werden nicht unterstützt</translation>
    </message>
    <message>
        <source>the ZIP64 end record offset %1 does not leave room for the record before its locator</source>
        <translation>der Offset %1 des ZIP64-Endeintrags lässt vor seinem Locator keinen Platz für den Eintrag</translation>
    </message>
    <message>
        <source>bad signature of the ZIP64 end-of-central-directory record</source>
        <translation>falsche Signatur des ZIP64-End-of-Central-Directory-Eintrags</translation>
    </message>
    <message>
        <source>the central directory (offset %1, %2 bytes) runs past the ZIP64 end record</source>
        <translation>das zentrale Verzeichnis (Offset %1, %2 Bytes) reicht über den ZIP64-Endeintrag hinaus</translation>
    </message>
    <message>
        <source>the central directory (offset %1, %2 bytes) runs past the end record at byte %3 (truncated archive?)</source>
        <translation>das zentrale Verzeichnis (Offset %1, %2 Bytes) reicht über den Endeintrag bei Byte %3 hinaus (abgeschnittenes Archiv?)</translation>
    </message>
    <message>
        <source>the central directory is cut off: entry %1 of %2 does not fit</source>
        <translation>das zentrale Verzeichnis ist abgeschnitten: Eintrag %1 von %2 passt nicht</translation>
    </message>
    <message>
        <source>bad signature of central directory entry %1</source>
        <translation>falsche Signatur des Eintrags %1 im zentralen Verzeichnis</translation>
    </message>
    <message>
        <source>the central directory is cut off inside entry %1</source>
        <translation>das zentrale Verzeichnis ist innerhalb von Eintrag %1 abgeschnitten</translation>
    </message>
    <message>
        <source>an extra field runs past its entry</source>
        <translation>ein Zusatzfeld reicht über seinen Eintrag hinaus</translation>
    </message>
    <message>
        <source>the ZIP64 extra field is too short for the saturated sizes</source>
        <translation>das ZIP64-Zusatzfeld ist für die gesättigten Größen zu kurz</translation>
    </message>
    <message>
        <source>encrypted members are not supported</source>
        <translation>verschlüsselte Einträge werden nicht unterstützt</translation>
    </message>
    <message>
        <source>unsupported compression %1 (stored and deflate are read)</source>
        <translation>nicht unterstützte Kompression %1 (gelesen werden stored und deflate)</translation>
    </message>
    <message>
        <source>the local header offset %1 lies past the end of the file</source>
        <translation>der Offset %1 des lokalen Headers liegt hinter dem Dateiende</translation>
    </message>
    <message>
        <source>bad signature of the local header</source>
        <translation>falsche Signatur des lokalen Headers</translation>
    </message>
    <message>
        <source>the local header runs past the end of the file</source>
        <translation>der lokale Header reicht über das Dateiende hinaus</translation>
    </message>
    <message>
        <source>the local header names a different member than the central directory</source>
        <translation>der lokale Header nennt einen anderen Eintrag als das zentrale Verzeichnis</translation>
    </message>
    <message>
        <source>the local header&apos;s compression method differs from the central directory&apos;s</source>
        <translation>die Kompressionsmethode des lokalen Headers weicht von der des zentralen Verzeichnisses ab</translation>
    </message>
    <message>
        <source>the compressed size %1 runs past the end of the file (%2 bytes follow)</source>
        <translation>die komprimierte Größe %1 reicht über das Dateiende hinaus (es folgen %2 Bytes)</translation>
    </message>
    <message>
        <source>a stored member&apos;s compressed size %1 differs from its size %2</source>
        <translation>die komprimierte Größe %1 eines unkomprimierten Eintrags weicht von seiner Größe %2 ab</translation>
    </message>
    <message>
        <source>the data descriptor is cut off by the end of the file</source>
        <translation>der Datendeskriptor wird vom Dateiende abgeschnitten</translation>
    </message>
    <message>
        <source>the data descriptor&apos;s CRC-32 differs from the central directory&apos;s</source>
        <translation>die CRC-32 des Datendeskriptors weicht von der des zentralen Verzeichnisses ab</translation>
    </message>
    <message>
        <source>the member states %1 bytes from %2 compressed ones, more than deflate&apos;s largest ratio (1032:1)</source>
        <translation>der Eintrag gibt %1 Bytes aus %2 komprimierten an, mehr als das größte Verhältnis von Deflate (1032:1)</translation>
    </message>
    <message>
        <source>the member inflates past its stated size of %1 bytes</source>
        <translation>der Eintrag entpackt sich über seine angegebene Größe von %1 Bytes hinaus</translation>
    </message>
    <message>
        <source>the deflate stream ends before its end marker (truncated member)</source>
        <translation>der Deflate-Strom endet vor seiner Endmarke (abgeschnittener Eintrag)</translation>
    </message>
    <message>
        <source>the member inflates to %1 bytes, the directory says %2</source>
        <translation>der Eintrag entpackt sich zu %1 Bytes, das Verzeichnis nennt %2</translation>
    </message>
    <message>
        <source>CRC-32 mismatch: computed %1, stored %2</source>
        <translation>CRC-32 stimmt nicht überein: berechnet %1, gespeichert %2</translation>
    </message>
    <message>
        <source>member is not an .npy array; ignored</source>
        <translation>der Eintrag ist kein .npy-Array; ignoriert</translation>
    </message>
    <message>
        <source>the member&apos;s data is shorter than its header says: shape %1 of &apos;%2&apos; needs %3 bytes after the header, the member holds %4</source>
        <translation>die Daten des Eintrags sind kürzer als sein Header angibt: die Form %1 von „%2“ braucht %3 Bytes nach dem Header, der Eintrag enthält %4</translation>
    </message>
    <message>
        <source>%1 trailing bytes after the array data inside the member</source>
        <translation>%1 überzählige Bytes nach den Arraydaten innerhalb des Eintrags</translation>
    </message>
    <message>
        <source>two members hold the array &apos;%1&apos;</source>
        <translation>zwei Einträge enthalten das Array „%1“</translation>
    </message>
    <message>
        <source>the central directory holds %1 bytes after its last entry (ignored)</source>
        <translation>das zentrale Verzeichnis enthält %1 Bytes nach seinem letzten Eintrag (ignoriert)</translation>
    </message>
    <message>
        <source>no array of this name in the archive</source>
        <translation>kein Array dieses Namens im Archiv</translation>
    </message>
    <message>
        <source>inflating array &apos;%1&apos;</source>
        <translation>Array „%1“ wird entpackt</translation>
    </message>
    <message>
        <source>the member inflates past its stated size</source>
        <translation>der Eintrag entpackt sich über seine angegebene Größe hinaus</translation>
    </message>
    <message>
        <source>the member changed since the archive was opened (size or CRC-32)</source>
        <translation>der Eintrag hat sich seit dem Öffnen des Archivs geändert (Größe oder CRC-32)</translation>
    </message>
    <message>
        <source>gguf: imatrix applies to the K-quants (q2_k … q6_k) and i-quants; %1 has no importance-weighted search</source>
        <translation>gguf: imatrix gilt für die K-Quants (q2_k … q6_k) und die i-Quants; %1 hat keine nach Wichtigkeit gewichtete Suche</translation>
    </message>
    <message>
        <source>gguf: the type %1 is not quantized here (one of q4_0 q4_1 q5_0 q5_1 q8_0 q2_k … q6_k iq1_s iq1_m iq2_xxs iq2_xs iq2_s iq3_xxs iq3_s iq4_nl iq4_xs tq1_0 tq2_0 mxfp4)</source>
        <translation>gguf: der Typ %1 wird hier nicht quantisiert (einer von q4_0 q4_1 q5_0 q5_1 q8_0 q2_k … q6_k iq1_s iq1_m iq2_xxs iq2_xs iq2_s iq3_xxs iq3_s iq4_nl iq4_xs tq1_0 tq2_0 mxfp4)</translation>
    </message>
    <message>
        <source>gguf: %1 needs an importance matrix, as llama.cpp&apos;s llama-quantize does (&quot;this quantization requires an imatrix&quot;): set imatrix (--imatrix) and pair a capture (--capture)</source>
        <translation>gguf: %1 braucht eine Wichtigkeitsmatrix, wie bei llama-quantize von llama.cpp (&quot;this quantization requires an imatrix&quot;): setzen Sie imatrix (--imatrix) und koppeln Sie eine Aufzeichnung (--capture)</translation>
    </message>
    <message>
        <source>sweep format &apos;%1&apos; needs an importance matrix (llama.cpp refuses it without one) and the sweep has no capture; try iq3_s, iq4_nl, iq4_xs, or quantize --method gguf --type %2 --imatrix --capture CAP.safetensors</source>
        <translation>das Durchlaufformat „%1“ braucht eine Wichtigkeitsmatrix (llama.cpp lehnt es ohne ab), und der Durchlauf hat keine Aufzeichnung; versuchen Sie iq3_s, iq4_nl, iq4_xs oder quantize --method gguf --type %2 --imatrix --capture CAP.safetensors</translation>
    </message>
    <message>
        <source>unknown sweep format &apos;%1&apos; (int2…int8, hqq2…hqq8, fp8, mxfp4, nvfp4, constopt, q4_0 q4_1 q5_0 q5_1 q8_0 q2_k…q6_k tq1_0 tq2_0 iq3_s iq4_nl iq4_xs; mxfp4 is the OCP one)</source>
        <translation>unbekanntes Durchlaufformat „%1“ (int2…int8, hqq2…hqq8, fp8, mxfp4, nvfp4, constopt, q4_0 q4_1 q5_0 q5_1 q8_0 q2_k…q6_k tq1_0 tq2_0 iq3_s iq4_nl iq4_xs; mxfp4 ist das von OCP)</translation>
    </message>
    <message>
        <source>importance weights (imatrix) for the unrotated K-quant points only: they weight the original input channels</source>
        <translation>Wichtigkeitsgewichte (imatrix) nur für die nicht rotierten K-Quant-Punkte: sie gewichten die ursprünglichen Eingangskanäle</translation>
    </message>
    <message>
        <source>quantizing to the ggml type %1 is not implemented</source>
        <translation>das Quantisieren in den ggml-Typ %1 ist nicht implementiert</translation>
    </message>
    <message>
        <source>quantizing to the ggml type %1 is not implemented (q4_0, q4_1, q5_0, q5_1, q8_0, q2_k … q6_k, iq1_s, iq1_m, iq2_xxs, iq2_xs, iq2_s, iq3_xxs, iq3_s, iq4_nl, iq4_xs, tq1_0, tq2_0, mxfp4 are)</source>
        <translation>das Quantisieren in den ggml-Typ %1 ist nicht implementiert (implementiert sind q4_0, q4_1, q5_0, q5_1, q8_0, q2_k … q6_k, iq1_s, iq1_m, iq2_xxs, iq2_xs, iq2_s, iq3_xxs, iq3_s, iq4_nl, iq4_xs, tq1_0, tq2_0, mxfp4)</translation>
    </message>
    <message>
        <source>rows of %1 values are not a whole number of %2 blocks of %3 (ggml quantizes along rows; pick a type with smaller blocks)</source>
        <translation>Zeilen aus %1 Werten sind keine ganze Zahl von %2-Blöcken zu %3 (ggml quantisiert entlang der Zeilen; wählen Sie einen Typ mit kleineren Blöcken)</translation>
    </message>
    <message>
        <source>importance weights are used by the K-quants (q2_k … q6_k) and i-quants only, not by %1</source>
        <translation>Wichtigkeitsgewichte verwenden nur die K-Quants (q2_k … q6_k) und die i-Quants, nicht %1</translation>
    </message>
    <message>
        <source>%1 needs an importance matrix: llama.cpp&apos;s llama-quantize refuses it without one (&quot;this quantization requires an imatrix&quot;); give importance weights (an imatrix)</source>
        <translation>%1 braucht eine Wichtigkeitsmatrix: llama-quantize von llama.cpp lehnt es ohne ab (&quot;this quantization requires an imatrix&quot;); geben Sie Wichtigkeitsgewichte an (eine imatrix)</translation>
    </message>
    <message>
        <source>the ggml type %1 does not decode to FP32</source>
        <translation>der ggml-Typ %1 lässt sich nicht nach FP32 dekodieren</translation>
    </message>
    <message>
        <source>cannot open: %1</source>
        <translation>kann nicht geöffnet werden: %1</translation>
    </message>
    <message>
        <source>file ends inside the tensor</source>
        <translation>die Datei endet innerhalb des Tensors</translation>
    </message>
    <message>
        <source>spectra must be off, counts or top-k, got &apos;%1&apos;</source>
        <translation>spectra muss off, counts oder top-k sein, erhalten: „%1“</translation>
    </message>
    <message>
        <source>tensor &apos;%1&apos; is stored as %2: integer codes, not weights; not scanned</source>
        <translation>der Tensor „%1“ ist als %2 gespeichert: ganzzahlige Codes, keine Gewichte; nicht gescannt</translation>
    </message>
    <message>
        <source>cannot open the report: %1</source>
        <translation>der Bericht kann nicht geöffnet werden: %1</translation>
    </message>
    <message>
        <source>cannot read the report: %1</source>
        <translation>der Bericht kann nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>not a scan report (its first line is not JSON); remove it or choose another --out</source>
        <translation>kein Scan-Bericht (seine erste Zeile ist kein JSON); entfernen Sie ihn oder wählen Sie ein anderes --out</translation>
    </message>
    <message>
        <source>not a scan report (no &quot;quantscope_scan&quot; header); remove it or choose another --out</source>
        <translation>kein Scan-Bericht (kein „quantscope_scan“-Header); entfernen Sie ihn oder wählen Sie ein anderes --out</translation>
    </message>
    <message>
        <source>a report of another scan (its &quot;%1&quot; differs); remove it or choose another --out to start afresh</source>
        <translation>ein Bericht eines anderen Scans (sein „%1“ weicht ab); entfernen Sie ihn oder wählen Sie ein anderes --out, um neu zu beginnen</translation>
    </message>
    <message>
        <source>cannot truncate the report: %1</source>
        <translation>der Bericht kann nicht gekürzt werden: %1</translation>
    </message>
    <message>
        <source>cannot write the report: %1</source>
        <translation>der Bericht kann nicht geschrieben werden: %1</translation>
    </message>
    <message>
        <source>cannot fsync the report: %1</source>
        <translation>der Bericht kann nicht auf den Datenträger geschrieben werden (fsync): %1</translation>
    </message>
    <message>
        <source>scan: module index %1 out of range</source>
        <translation>Scan: Modulindex %1 außerhalb des Bereichs</translation>
    </message>
    <message>
        <source>scan: commit before open</source>
        <translation>Scan: Abschluss vor dem Öffnen</translation>
    </message>
    <message>
        <source>the quantscope_bridge package was not found: set QUANTSCOPE_BRIDGE_DIR to the folder holding it (the source tree&apos;s python/)</source>
        <translation>das Paket quantscope_bridge wurde nicht gefunden: setzen Sie QUANTSCOPE_BRIDGE_DIR auf den Ordner, der es enthält (python/ im Quellbaum)</translation>
    </message>
    <message>
        <source>cannot start the Python interpreter &apos;%1&apos; (%2): install Python 3 or set QUANTSCOPE_PYTHON to one</source>
        <translation>der Python-Interpreter „%1“ kann nicht gestartet werden (%2): installieren Sie Python 3 oder setzen Sie QUANTSCOPE_PYTHON auf einen</translation>
    </message>
    <message>
        <source>the interpreter &apos;%1&apos; cannot import quantscope_bridge from %2</source>
        <translation>der Interpreter „%1“ kann quantscope_bridge nicht aus %2 importieren</translation>
    </message>
    <message>
        <source>the bridge (%1) exited with status %2 without a result</source>
        <translation>die Brücke (%1) endete mit Status %2 ohne Ergebnis</translation>
    </message>
    <message>
        <source>the bridge (%1) exited with status %2 without a result; its last output:%3</source>
        <translation>die Brücke (%1) endete mit Status %2 ohne Ergebnis; ihre letzte Ausgabe:%3</translation>
    </message>
    <message>
        <source>cannot create a temporary folder</source>
        <translation>es kann kein temporärer Ordner angelegt werden</translation>
    </message>
    <message>
        <source>give the calibration data as --text FILE or --tokens FILE.npy (one of them)</source>
        <translation>geben Sie die Kalibrierdaten als --text FILE oder --tokens FILE.npy an (eines davon)</translation>
    </message>
    <message>
        <source>capture needs --out CAP.safetensors</source>
        <translation>capture braucht --out CAP.safetensors</translation>
    </message>
    <message>
        <source>the bridge wrote a capture this build cannot read (removed): %1</source>
        <translation>die Brücke schrieb eine Aufzeichnung, die dieser Build nicht lesen kann (entfernt): %1</translation>
    </message>
    <message>
        <source>eval needs --recipe R.json or --checkpoint EXPORTED (one of them)</source>
        <translation>eval braucht --recipe R.json oder --checkpoint EXPORTED (eines davon)</translation>
    </message>
    <message>
        <source>reading the model&apos;s weights through transformers</source>
        <translation>die Gewichte des Modells werden über transformers gelesen</translation>
    </message>
    <message>
        <source>the eval report has no &quot;modules&quot; array</source>
        <translation>der Eval-Bericht hat kein „modules“-Array</translation>
    </message>
    <message>
        <source>%1: kept dense by default — %2</source>
        <translation>%1: standardmäßig dicht belassen — %2</translation>
    </message>
    <message>
        <source>%1: %2 gives %3 specs (candidates a scan compares); eval needs the one chosen</source>
        <translation>%1: %2 ergibt %3 Spezifikationen (Kandidaten, die ein Scan vergleicht); eval braucht die gewählte</translation>
    </message>
    <message>
        <source>the recipe quantizes no module of %1 (after the default exclusions): nothing to evaluate</source>
        <translation>das Rezept quantisiert kein Modul von %1 (nach den Standardausschlüssen): nichts zu evaluieren</translation>
    </message>
    <message>
        <source>quantizing %1</source>
        <translation>%1 wird quantisiert</translation>
    </message>
    <message>
        <source>writing %1</source>
        <translation>%1 wird geschrieben</translation>
    </message>
    <message>
        <source>%1 holds no quantized module that Quantscope decodes (compressed-tensors, Quark, FP8 block, native): pass the original model with --recipe instead</source>
        <translation>%1 enthält kein quantisiertes Modul, das Quantscope dekodiert (compressed-tensors, Quark, FP8 block, nativ): übergeben Sie stattdessen das ursprüngliche Modell mit --recipe</translation>
    </message>
    <message>
        <source>decoding %1</source>
        <translation>%1 wird dekodiert</translation>
    </message>
    <message>
        <source>module &apos;%1&apos; is stored as %2 (stacked experts): eval replaces 2-D Linear weights</source>
        <translation>das Modul „%1“ ist als %2 gespeichert (gestapelte Experten): eval ersetzt 2-D-Linear-Gewichte</translation>
    </message>
    <message>
        <source>not a 2-D weight (%1-D): no Linear layer to quantize</source>
        <translation>kein 2-D-Gewicht (%1-D): keine Linear-Schicht zum Quantisieren</translation>
    </message>
    <message>
        <source>an embedding: the toolkits quantize Linear layers, and vLLM keeps embeddings dense</source>
        <translation>eine Einbettung: die Toolkits quantisieren Linear-Schichten, und vLLM belässt Einbettungen dicht</translation>
    </message>
    <message>
        <source>the output head: llm-compressor, Quark and vLLM users keep lm_head dense by default</source>
        <translation>der Ausgabekopf: Nutzer von llm-compressor, Quark und vLLM belassen lm_head standardmäßig dicht</translation>
    </message>
    <message>
        <source>a MoE router: serving engines keep routers dense (their logits choose the experts)</source>
        <translation>ein MoE-Router: Serving-Engines belassen Router dicht (ihre Logits wählen die Experten)</translation>
    </message>
    <message>
        <source>a norm: not a Linear layer</source>
        <translation>eine Norm: keine Linear-Schicht</translation>
    </message>
    <message>
        <source>recipe %1: %2</source>
        <translation>Rezept %1: %2</translation>
    </message>
    <message>
        <source>recipe (top): %1</source>
        <translation>Rezept (oberste Ebene): %1</translation>
    </message>
    <message>
        <source>missing &quot;%1&quot;</source>
        <translation>„%1“ fehlt</translation>
    </message>
    <message>
        <source>must be an object</source>
        <translation>muss ein Objekt sein</translation>
    </message>
    <message>
        <source>unknown key (known: %1)</source>
        <translation>unbekannter Schlüssel (bekannt: %1)</translation>
    </message>
    <message>
        <source>must be a string</source>
        <translation>muss eine Zeichenkette sein</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is not a dialect (fnmatch, re, exact)</source>
        <translation>„%1“ ist kein Dialekt (fnmatch, re, exact)</translation>
    </message>
    <message>
        <source>empty pattern</source>
        <translation>leeres Muster</translation>
    </message>
    <message>
        <source>regex &apos;%1&apos; does not compile: %2</source>
        <translation>der reguläre Ausdruck „%1“ lässt sich nicht übersetzen: %2</translation>
    </message>
    <message>
        <source>regex &apos;%1&apos;: %2 at offset %3 is not in the supported subset (std::regex ECMAScript; see the recipe section of the formats documentation)</source>
        <translation>regulärer Ausdruck „%1“: %2 bei Offset %3 gehört nicht zur unterstützten Teilmenge (std::regex ECMAScript; siehe den Rezeptabschnitt der Formatdokumentation)</translation>
    </message>
    <message>
        <source>an escape with more than 3 digits</source>
        <translation>eine Escape-Sequenz mit mehr als 3 Ziffern</translation>
    </message>
    <message>
        <source>a repetition count above 1000</source>
        <translation>eine Wiederholungszahl über 1000</translation>
    </message>
    <message>
        <source>a &apos;]&apos; first in a class</source>
        <translation>ein „]“ am Anfang einer Klasse</translation>
    </message>
    <message>
        <source>a named group</source>
        <translation>eine benannte Gruppe</translation>
    </message>
    <message>
        <source>an atomic group</source>
        <translation>eine atomare Gruppe</translation>
    </message>
    <message>
        <source>an inline flag or extension &apos;(?%1&apos;</source>
        <translation>ein Inline-Flag oder eine Erweiterung „(?%1“</translation>
    </message>
    <message>
        <source>a possessive quantifier</source>
        <translation>ein possessiver Quantor</translation>
    </message>
    <message>
        <source>must be a KV scheme name (a string)</source>
        <translation>muss der Name eines KV-Schemas sein (eine Zeichenkette)</translation>
    </message>
    <message>
        <source>must be an integer in [%1, 100000], got %2</source>
        <translation>muss eine ganze Zahl in [%1, 100000] sein, erhalten: %2</translation>
    </message>
    <message>
        <source>needs kv_cache.layers (the model&apos;s attention layers) to know which are last</source>
        <translation>braucht kv_cache.layers (die Attention-Schichten des Modells), um zu wissen, welche die letzten sind</translation>
    </message>
    <message>
        <source>must be an array</source>
        <translation>muss ein Array sein</translation>
    </message>
    <message>
        <source>must be [first, last]</source>
        <translation>muss [first, last] sein</translation>
    </message>
    <message>
        <source>last (%1) is before first (%2)</source>
        <translation>last (%1) liegt vor first (%2)</translation>
    </message>
    <message>
        <source>layer %1 is beyond kv_cache.layers (%2)</source>
        <translation>Schicht %1 liegt jenseits von kv_cache.layers (%2)</translation>
    </message>
    <message>
        <source>must be %1, got %2</source>
        <translation>muss %1 sein, erhalten: %2</translation>
    </message>
    <message>
        <source>must be a non-empty array of strings</source>
        <translation>muss ein nichtleeres Array von Zeichenketten sein</translation>
    </message>
    <message>
        <source>must be a non-empty array of spec objects</source>
        <translation>muss ein nichtleeres Array von Spezifikationsobjekten sein</translation>
    </message>
    <message>
        <source>must be a spec object with &quot;method&quot;</source>
        <translation>muss ein Spezifikationsobjekt mit „method“ sein</translation>
    </message>
    <message>
        <source>must be an object: module name → {bits, rank, c}</source>
        <translation>muss ein Objekt sein: Modulname → {bits, rank, c}</translation>
    </message>
    <message>
        <source>must be an integer</source>
        <translation>muss eine ganze Zahl sein</translation>
    </message>
    <message>
        <source>no spec of this rule has &quot;bits&quot;</source>
        <translation>keine Spezifikation dieser Regel hat „bits“</translation>
    </message>
    <message>
        <source>no spec of this rule has &quot;rank&quot;</source>
        <translation>keine Spezifikation dieser Regel hat „rank“</translation>
    </message>
    <message>
        <source>must be a number</source>
        <translation>muss eine Zahl sein</translation>
    </message>
    <message>
        <source>no spec of this rule has &quot;c&quot;</source>
        <translation>keine Spezifikation dieser Regel hat „c“</translation>
    </message>
    <message>
        <source>sets nothing (bits, rank or c)</source>
        <translation>setzt nichts (bits, rank oder c)</translation>
    </message>
    <message>
        <source>makes specs[%1] invalid: %2</source>
        <translation>macht specs[%1] ungültig: %2</translation>
    </message>
    <message>
        <source>cannot open the recipe</source>
        <translation>das Rezept kann nicht geöffnet werden</translation>
    </message>
    <message>
        <source>cannot write the recipe</source>
        <translation>das Rezept kann nicht geschrieben werden</translation>
    </message>
    <message>
        <source>writing the recipe failed</source>
        <translation>das Schreiben des Rezepts ist fehlgeschlagen</translation>
    </message>
    <message>
        <source>cannot rename the recipe into place</source>
        <translation>das Rezept kann nicht an seinen Platz umbenannt werden</translation>
    </message>
    <message>
        <source>excluded by exclude[%1] %2 &apos;%3&apos;</source>
        <translation>ausgeschlossen durch exclude[%1] %2 „%3“</translation>
    </message>
    <message>
        <source>%1 (rule %2 would have matched)</source>
        <translation>%1 (Regel %2 hätte gepasst)</translation>
    </message>
    <message>
        <source>no rule matches</source>
        <translation>keine Regel passt</translation>
    </message>
    <message>
        <source>rule %1 pattern %2 &apos;%3&apos; (first matching rule)</source>
        <translation>Regel %1, Muster %2 „%3“ (erste passende Regel)</translation>
    </message>
    <message>
        <source>rule %1 &apos;%2&apos; pattern %3 &apos;%4&apos; (first matching rule)</source>
        <translation>Regel %1 „%2“, Muster %3 „%4“ (erste passende Regel)</translation>
    </message>
    <message>
        <source>%1, with its override</source>
        <translation>%1, mit ihrer Überschreibung</translation>
    </message>
    <message>
        <source>excluded</source>
        <translation>ausgeschlossen</translation>
    </message>
    <message>
        <source>not quantized</source>
        <translation>nicht quantisiert</translation>
    </message>
    <message>
        <source>fused at inference but resolved to unequal specs: %1 (%2) vs %3</source>
        <translation>bei der Inferenz fusioniert, aber zu ungleichen Spezifikationen aufgelöst: %1 (%2) gegenüber %3</translation>
    </message>
    <message>
        <source>unescaped &apos;.&apos; matches any character (write &apos;\.&apos; for a dot)</source>
        <translation>ein nicht maskierter „.“ passt auf jedes Zeichen (schreiben Sie „\.“ für einen Punkt)</translation>
    </message>
    <message>
        <source>unescaped &apos;.&apos; matches any character, e.g. &apos;%1&apos; (write &apos;\.&apos; for a dot)</source>
        <translation>ein nicht maskierter „.“ passt auf jedes Zeichen, z. B. „%1“ (schreiben Sie „\.“ für einen Punkt)</translation>
    </message>
    <message>
        <source>NumPy arrays (%1), not a safetensors checkpoint: read whole, nothing wrong with them</source>
        <translation>NumPy-Arrays (%1), kein safetensors-Checkpoint: vollständig gelesen, nichts daran auszusetzen</translation>
    </message>
    <message>
        <source>a NumPy file of a kind Quantscope does not read: %1</source>
        <translation>eine NumPy-Datei einer Art, die Quantscope nicht liest: %1</translation>
    </message>
    <message>
        <source>a corrupt NumPy file: %1</source>
        <translation>eine beschädigte NumPy-Datei: %1</translation>
    </message>
    <message>
        <source>%1 decoded values are NaN or Inf</source>
        <translation>%1 dekodierte Werte sind NaN oder Inf</translation>
    </message>
    <message>
        <source>GGUF v%1 (%2, %3 tensors), not a safetensors checkpoint: read and decoded, nothing wrong with it</source>
        <translation>GGUF v%1 (%2, %3 Tensoren), kein safetensors-Checkpoint: gelesen und dekodiert, nichts daran auszusetzen</translation>
    </message>
    <message>
        <source>no architecture</source>
        <translation>keine Architektur</translation>
    </message>
    <message>
        <source>a corrupt GGUF file: %1</source>
        <translation>eine beschädigte GGUF-Datei: %1</translation>
    </message>
    <message>
        <source>config.json declares static input scales but %1 has no input_scale (%2): engines have no activation scale for it</source>
        <translation>config.json deklariert statische Eingabeskalen, aber %1 hat keine input_scale (%2): Engines haben keine Aktivierungsskala dafür</translation>
    </message>
    <message>
        <source>config.json declares a quantized KV cache but %1 has no %2_scale: engines fall back to 1.0 for this layer</source>
        <translation>config.json deklariert einen quantisierten KV-Cache, aber %1 hat keine %2_scale: Engines verwenden für diese Schicht ersatzweise 1.0</translation>
    </message>
    <message>
        <source>config.json quantizes %1 (%2, not in its ignore/exclude list) but its weight is stored dense (%3): loaders expect the quantized tensors; add it to the ignore list or quantize it</source>
        <translation>config.json quantisiert %1 (%2, nicht in seiner ignore/exclude-Liste), aber sein Gewicht ist dicht gespeichert (%3): Lader erwarten die quantisierten Tensoren; nehmen Sie es in die ignore-Liste auf oder quantisieren Sie es</translation>
    </message>
    <message>
        <source>the scheme declares %1-bit weights (%2) but %3 stores %4 bits of codes per weight (%5 with its scales): %6 codes, larger than declared</source>
        <translation>das Schema deklariert %1-Bit-Gewichte (%2), aber %3 speichert %4 Bit Codes pro Gewicht (%5 mit seinen Skalen): %6-Codes, größer als deklariert</translation>
    </message>
    <message>
        <source>the scheme declares %1-bit weights (%2) but %3 stores only %4 bits of codes per weight: the codes cannot hold them</source>
        <translation>das Schema deklariert %1-Bit-Gewichte (%2), aber %3 speichert nur %4 Bit Codes pro Gewicht: die Codes können sie nicht fassen</translation>
    </message>
    <message>
        <source>%1: K = %2 columns is not divisible by group_size %3 (compressed-tensors 0.20 raises &apos;tensor column shape must be divisible by the given group_size&apos;)</source>
        <translation>%1: K = %2 Spalten ist nicht durch group_size %3 teilbar (compressed-tensors 0.20 meldet &apos;tensor column shape must be divisible by the given group_size&apos;)</translation>
    </message>
    <message>
        <source>%1: the weight [%2, %3] is not a whole number of %4×%5 FP8 blocks (transformers&apos; FineGrainedFP8 refuses: not divisible by scale grid)</source>
        <translation>%1: das Gewicht [%2, %3] ist keine ganze Zahl von %4×%5-FP8-Blöcken (FineGrainedFP8 von transformers lehnt ab: not divisible by scale grid)</translation>
    </message>
    <message>
        <source>%1 of %2 %3 (E8M0) scales are 2^-127 (code 0) where the group&apos;s codes are not: the scale underflowed when it was cast, and the group decodes to (almost) 0</source>
        <translation>%1 von %2 %3-Skalen (E8M0) sind 2^-127 (Code 0), wo die Codes der Gruppe es nicht sind: die Skala ist bei der Umwandlung unterlaufen, und die Gruppe dekodiert zu (fast) 0</translation>
    </message>
    <message>
        <source>%1 of %2 %3 scales are 2^-127 (code 0) where the group&apos;s codes are not: the scale underflowed when it was cast, and the group decodes to (almost) 0</source>
        <translation>%1 von %2 %3-Skalen sind 2^-127 (Code 0), wo die Codes der Gruppe es nicht sind: die Skala ist bei der Umwandlung unterlaufen, und die Gruppe dekodiert zu (fast) 0</translation>
    </message>
    <message>
        <source>%1 of %2 %3 scales are 0 where the group&apos;s codes are not: the scale underflowed when it was cast, and the group decodes to (almost) 0</source>
        <translation>%1 von %2 %3-Skalen sind 0, wo die Codes der Gruppe es nicht sind: die Skala ist bei der Umwandlung unterlaufen, und die Gruppe dekodiert zu (fast) 0</translation>
    </message>
    <message>
        <source>%1 E8M0 scales are 2^-127 over groups whose codes are all 0</source>
        <translation>%1 E8M0-Skalen sind 2^-127 über Gruppen, deren Codes alle 0 sind</translation>
    </message>
    <message>
        <source>%1 has NVFP4 weight_global_scale %2 but %3 of the same fused group %4 has %5: vLLM fuses them and takes one global scale, so they cannot all decode right</source>
        <translation>%1 hat die NVFP4-weight_global_scale %2, aber %3 derselben fusionierten Gruppe %4 hat %5: vLLM fusioniert sie und nimmt eine globale Skala, daher können nicht alle richtig dekodiert werden</translation>
    </message>
    <message>
        <source>config.json says tie_word_embeddings: true but %1 is stored quantized: transformers ties it to the embeddings and fails to load it</source>
        <translation>config.json gibt tie_word_embeddings: true an, aber %1 ist quantisiert gespeichert: transformers bindet es an die Einbettungen und kann es nicht laden</translation>
    </message>
    <message>
        <source>%1 cannot be read: %2</source>
        <translation>%1 kann nicht gelesen werden: %2</translation>
    </message>
    <message>
        <source>%1 is %2 bytes, more than the 100 MB a JSON file here may have</source>
        <translation>%1 hat %2 Bytes, mehr als die 100 MB, die eine JSON-Datei hier haben darf</translation>
    </message>
    <message>
        <source>%1 is a git-LFS pointer, not the file: fetch it with `git lfs pull`</source>
        <translation>%1 ist ein git-LFS-Zeiger, nicht die Datei: holen Sie sie mit `git lfs pull`</translation>
    </message>
    <message>
        <source>%1 is not valid JSON: %2</source>
        <translation>%1 ist kein gültiges JSON: %2</translation>
    </message>
    <message>
        <source>the index</source>
        <translation>der Index</translation>
    </message>
    <message>
        <source>the shard cannot be read: %1</source>
        <translation>der Shard kann nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>a git-LFS pointer file (%1 bytes), not the weights: fetch them with `git lfs pull`</source>
        <translation>eine git-LFS-Zeigerdatei (%1 Bytes), nicht die Gewichte: holen Sie sie mit `git lfs pull`</translation>
    </message>
    <message>
        <source>truncated: %1 bytes, shorter than the 8-byte header size</source>
        <translation>abgeschnitten: %1 Bytes, kürzer als die 8-Byte-Headergröße</translation>
    </message>
    <message>
        <source>the header size says %1 bytes but the file has %2 after it (truncated, or not a safetensors file)</source>
        <translation>die Headergröße nennt %1 Bytes, aber die Datei hat danach %2 (abgeschnitten oder keine safetensors-Datei)</translation>
    </message>
    <message>
        <source>the header is %1 bytes, more than the 100 MB safetensors allows</source>
        <translation>der Header hat %1 Bytes, mehr als die 100 MB, die safetensors erlaubt</translation>
    </message>
    <message>
        <source>the header is not a JSON object</source>
        <translation>der Header ist kein JSON-Objekt</translation>
    </message>
    <message>
        <source>__metadata__ is not an object of strings</source>
        <translation>__metadata__ ist kein Objekt aus Zeichenketten</translation>
    </message>
    <message>
        <source>header entry of &apos;%1&apos;: %2</source>
        <translation>Headereintrag von „%1“: %2</translation>
    </message>
    <message>
        <source>not an object with dtype, shape and data_offsets</source>
        <translation>kein Objekt mit dtype, shape und data_offsets</translation>
    </message>
    <message>
        <source>dtype is not a string</source>
        <translation>dtype ist keine Zeichenkette</translation>
    </message>
    <message>
        <source>unknown dtype &apos;%1&apos;</source>
        <translation>unbekannter dtype „%1“</translation>
    </message>
    <message>
        <source>shape is not a list of non-negative integers of a sane size</source>
        <translation>shape ist keine Liste nichtnegativer ganzer Zahlen vernünftiger Größe</translation>
    </message>
    <message>
        <source>data_offsets is not [begin, end] of non-negative integers</source>
        <translation>data_offsets ist nicht [begin, end] aus nichtnegativen ganzen Zahlen</translation>
    </message>
    <message>
        <source>data_offsets end before they begin</source>
        <translation>data_offsets enden, bevor sie beginnen</translation>
    </message>
    <message>
        <source>holds %1 bytes, but %2 of this shape needs %3</source>
        <translation>enthält %1 Bytes, aber %2 dieser Form braucht %3</translation>
    </message>
    <message>
        <source>holds %1 bytes, but %2 of this shape needs %3 and a fraction</source>
        <translation>enthält %1 Bytes, aber %2 dieser Form braucht %3 und einen Bruchteil</translation>
    </message>
    <message>
        <source>truncated: the tensor ends at byte %1 of a %2-byte file</source>
        <translation>abgeschnitten: der Tensor endet bei Byte %1 einer Datei mit %2 Bytes</translation>
    </message>
    <message>
        <source>its bytes overlap the previous tensor&apos;s (data_offsets begin %1 &lt; %2)</source>
        <translation>seine Bytes überlappen die des vorigen Tensors (data_offsets-Beginn %1 &lt; %2)</translation>
    </message>
    <message>
        <source>%1 bytes before this tensor belong to no tensor</source>
        <translation>%1 Bytes vor diesem Tensor gehören zu keinem Tensor</translation>
    </message>
    <message>
        <source>%1 bytes at the end of the file belong to no tensor</source>
        <translation>%1 Bytes am Ende der Datei gehören zu keinem Tensor</translation>
    </message>
    <message>
        <source>no config.json beside the weights</source>
        <translation>keine config.json neben den Gewichten</translation>
    </message>
    <message>
        <source>the index has no weight_map object</source>
        <translation>der Index hat kein weight_map-Objekt</translation>
    </message>
    <message>
        <source>the index maps this tensor to something that is not a file name in the folder</source>
        <translation>der Index ordnet diesen Tensor etwas zu, das kein Dateiname im Ordner ist</translation>
    </message>
    <message>
        <source>a .safetensors file the index does not reference (stale or misplaced?)</source>
        <translation>eine .safetensors-Datei, auf die der Index nicht verweist (veraltet oder falsch abgelegt?)</translation>
    </message>
    <message>
        <source>no .safetensors file and no index here</source>
        <translation>hier keine .safetensors-Datei und kein Index</translation>
    </message>
    <message>
        <source>%1 .safetensors files and no model.safetensors.index.json: the readers refuse to guess which belong together; examined all of them</source>
        <translation>%1 .safetensors-Dateien und keine model.safetensors.index.json: die Leser raten nicht, welche zusammengehören; alle wurden untersucht</translation>
    </message>
    <message>
        <source>the shard is missing (%1 tensors of the index live there)</source>
        <translation>der Shard fehlt (%1 Tensoren des Index liegen dort)</translation>
    </message>
    <message>
        <source>present in %1 shards (%2, %3): which copy is meant is undefined</source>
        <translation>in %1 Shards vorhanden (%2, %3): welche Kopie gemeint ist, ist nicht festgelegt</translation>
    </message>
    <message>
        <source>the index places this tensor in %1, whose header does not list it</source>
        <translation>der Index legt diesen Tensor in %1, dessen Header ihn nicht aufführt</translation>
    </message>
    <message>
        <source>in a shard&apos;s header but not in the index&apos;s weight_map (loaders will not see it)</source>
        <translation>im Header eines Shards, aber nicht in der weight_map des Index (Lader sehen ihn nicht)</translation>
    </message>
    <message>
        <source>metadata.total_size is %1 but the tensors hold %2 bytes</source>
        <translation>metadata.total_size beträgt %1, aber die Tensoren enthalten %2 Bytes</translation>
    </message>
    <message>
        <source>%1 NaN, %2 Inf and %3 zero scales of %4 in this quantized module</source>
        <translation>%1 NaN-, %2 Inf- und %3 Null-Skalen von %4 in diesem quantisierten Modul</translation>
    </message>
    <message>
        <source>%1 is stored as %2 but %3 of the same fused group %4 as %5: vLLM fuses them into one GEMM with one scheme and refuses (or misreads) the mix</source>
        <translation>%1 ist als %2 gespeichert, aber %3 derselben fusionierten Gruppe %4 als %5: vLLM fusioniert sie zu einem GEMM mit einem Schema und lehnt die Mischung ab (oder liest sie falsch)</translation>
    </message>
    <message>
        <source>config.json declares a quantization_config but no tensor is stored quantized</source>
        <translation>config.json deklariert eine quantization_config, aber kein Tensor ist quantisiert gespeichert</translation>
    </message>
    <message>
        <source>%1 quantized modules without a quantization_config: their layout was inferred from the tensors</source>
        <translation>%1 quantisierte Module ohne quantization_config: ihr Layout wurde aus den Tensoren erschlossen</translation>
    </message>
    <message>
        <source>cannot create a scratch folder</source>
        <translation>es kann kein Arbeitsordner angelegt werden</translation>
    </message>
    <message>
        <source>cannot be mapped: %1</source>
        <translation>kann nicht eingeblendet werden: %1</translation>
    </message>
    <message>
        <source>the same bytes as &apos;%1&apos; (tied or duplicated weights)</source>
        <translation>dieselben Bytes wie „%1“ (gebundene oder doppelte Gewichte)</translation>
    </message>
    <message>
        <source>%1 NaN codes (0x7F/0xFF) in an F8_E4M3 (e4m3fn) tensor</source>
        <translation>%1 NaN-Codes (0x7F/0xFF) in einem F8_E4M3-Tensor (e4m3fn)</translation>
    </message>
    <message>
        <source>%1 % of the codes are 0x80 and none exceeds 240: written as e4m3fnuz (where 0x80 is NaN) but labelled F8_E4M3 (e4m3fn)?</source>
        <translation>%1 % der Codes sind 0x80 und keiner übersteigt 240: als e4m3fnuz geschrieben (wo 0x80 NaN ist), aber als F8_E4M3 (e4m3fn) bezeichnet?</translation>
    </message>
    <message>
        <source>%1 NaN and %2 Inf scales of %3: every weight they scale decodes to NaN/Inf</source>
        <translation>%1 NaN- und %2 Inf-Skalen von %3: jedes Gewicht, das sie skalieren, dekodiert zu NaN/Inf</translation>
    </message>
    <message>
        <source>%1 NaN and %2 Inf scales of %3 (E8M0 0xFF is NaN): every weight they scale decodes to NaN/Inf</source>
        <translation>%1 NaN- und %2 Inf-Skalen von %3 (E8M0 0xFF ist NaN): jedes Gewicht, das sie skalieren, dekodiert zu NaN/Inf</translation>
    </message>
    <message>
        <source>%1 zero scales of %2: their groups decode to 0 (or divide by zero where the scale is inverted)</source>
        <translation>%1 Null-Skalen von %2: ihre Gruppen dekodieren zu 0 (oder teilen durch null, wo die Skala invertiert wird)</translation>
    </message>
    <message>
        <source>%1 subnormal scales: they flush to 0 on hardware that flushes denormals</source>
        <translation>%1 subnormale Skalen: sie werden auf Hardware, die Denormale auf null setzt, zu 0</translation>
    </message>
    <message>
        <source>%1 scales above 448 cannot be cast to E4M3 (they become NaN)</source>
        <translation>%1 Skalen über 448 lassen sich nicht nach E4M3 umwandeln (sie werden NaN)</translation>
    </message>
    <message>
        <source>95 % of the values lie in [0.5, 4): BF16 bits labelled F16? (median |x| %1)</source>
        <translation>95 % der Werte liegen in [0.5, 4): BF16-Bits als F16 bezeichnet? (Median |x| %1)</translation>
    </message>
    <message>
        <source>median |x| is %1: F16 bits labelled BF16?</source>
        <translation>der Median |x| ist %1: F16-Bits als BF16 bezeichnet?</translation>
    </message>
    <message>
        <source>every %1 (%2) is 1.0: a placeholder, not calibrated?</source>
        <translation>jede %1 (%2) ist 1.0: ein Platzhalter, nicht kalibriert?</translation>
    </message>
    <message>
        <source>%1 %2 is more than 10× the median of the layers (%3)</source>
        <translation>%1 %2 ist mehr als das 10-Fache des Medians der Schichten (%3)</translation>
    </message>
    <message>
        <source>a packed weight without weight_scale: it cannot be decoded</source>
        <translation>ein gepacktes Gewicht ohne weight_scale: es kann nicht dekodiert werden</translation>
    </message>
    <message>
        <source>a packed weight without weight_shape: the unpacked width is inferred from the config or the words</source>
        <translation>ein gepacktes Gewicht ohne weight_shape: die entpackte Breite wird aus der Konfiguration oder den Wörtern erschlossen</translation>
    </message>
    <message>
        <source>a weight scale without its weight</source>
        <translation>eine Gewichtsskala ohne ihr Gewicht</translation>
    </message>
    <message>
        <source>a zero point without its scale</source>
        <translation>ein Nullpunkt ohne seine Skala</translation>
    </message>
    <message>
        <source>the reader refuses the checkpoint: %1</source>
        <translation>der Leser lehnt den Checkpoint ab: %1</translation>
    </message>
    <message>
        <source>%1 quantized modules were not given to the reader (more than %2 MiB of valid tensors to salvage); fix the completeness errors and run again for their verdict</source>
        <translation>%1 quantisierte Module wurden dem Leser nicht übergeben (mehr als %2 MiB gültiger Tensoren zu retten); beheben Sie die Vollständigkeitsfehler und starten Sie erneut für ihr Urteil</translation>
    </message>
    <message>
        <source>cannot read the tensor&apos;s bytes</source>
        <translation>die Bytes des Tensors können nicht gelesen werden</translation>
    </message>
    <message>
        <source>cannot write the salvaged copy</source>
        <translation>die gerettete Kopie kann nicht geschrieben werden</translation>
    </message>
    <message>
        <source>the files have completeness errors, so the reader&apos;s per-module verdict ran on the valid tensors of the %1 modules that look quantized</source>
        <translation>die Dateien haben Vollständigkeitsfehler, daher lief das Urteil des Lesers pro Modul auf den gültigen Tensoren der %1 Module, die quantisiert aussehen</translation>
    </message>
    <message>
        <source>the reader&apos;s per-module verdict could not run on the valid tensors: %1</source>
        <translation>das Urteil des Lesers pro Modul konnte auf den gültigen Tensoren nicht laufen: %1</translation>
    </message>
    <message>
        <source>weight %1 of &apos;%2&apos; is not finite</source>
        <translation>Gewicht %1 von „%2“ ist nicht endlich</translation>
    </message>
    <message>
        <source>the file ends inside %1</source>
        <translation>die Datei endet innerhalb von %1</translation>
    </message>
    <message>
        <source>the entry count</source>
        <translation>die Eintragsanzahl</translation>
    </message>
    <message>
        <source>the entry count is %1 (at least 1)</source>
        <translation>die Eintragsanzahl ist %1 (mindestens 1)</translation>
    </message>
    <message>
        <source>the entry count %1 cannot fit in %2 bytes</source>
        <translation>die Eintragsanzahl %1 passt nicht in %2 Bytes</translation>
    </message>
    <message>
        <source>an entry&apos;s name length</source>
        <translation>die Namenslänge eines Eintrags</translation>
    </message>
    <message>
        <source>entry %1&apos;s name length %2 is outside the file</source>
        <translation>die Namenslänge %2 von Eintrag %1 liegt außerhalb der Datei</translation>
    </message>
    <message>
        <source>entry %1&apos;s name is not UTF-8</source>
        <translation>der Name von Eintrag %1 ist kein UTF-8</translation>
    </message>
    <message>
        <source>an entry&apos;s call count</source>
        <translation>die Aufrufanzahl eines Eintrags</translation>
    </message>
    <message>
        <source>an entry&apos;s value count</source>
        <translation>die Werteanzahl eines Eintrags</translation>
    </message>
    <message>
        <source>&apos;%1&apos; has a negative call count %2</source>
        <translation>„%1“ hat die negative Aufrufanzahl %2</translation>
    </message>
    <message>
        <source>&apos;%1&apos; claims %2 values, %3 fit in the rest of the file</source>
        <translation>„%1“ gibt %2 Werte an, in den Rest der Datei passen %3</translation>
    </message>
    <message>
        <source>&apos;%1&apos; appears twice</source>
        <translation>„%1“ kommt zweimal vor</translation>
    </message>
    <message>
        <source>the chunk count</source>
        <translation>die Chunk-Anzahl</translation>
    </message>
    <message>
        <source>the dataset name&apos;s length</source>
        <translation>die Länge des Datensatznamens</translation>
    </message>
    <message>
        <source>an imatrix GGUF needs imatrix.datasets, imatrix.chunk_count and imatrix.chunk_size</source>
        <translation>eine imatrix-GGUF braucht imatrix.datasets, imatrix.chunk_count und imatrix.chunk_size</translation>
    </message>
    <message>
        <source>&apos;%1&apos; has no &apos;%2.counts&apos;</source>
        <translation>„%1“ hat kein „%2.counts“</translation>
    </message>
    <message>
        <source>&apos;%1&apos;: in_sum2 and counts must be F32</source>
        <translation>„%1“: in_sum2 und counts müssen F32 sein</translation>
    </message>
    <message>
        <source>&apos;%1&apos;: counts [1, %2] do not fit in_sum2 [%3, %4]</source>
        <translation>„%1“: counts [1, %2] passen nicht zu in_sum2 [%3, %4]</translation>
    </message>
    <message>
        <source>a GGUF imatrix holds NAME.in_sum2 / NAME.counts tensors; this file has none</source>
        <translation>eine GGUF-imatrix enthält NAME.in_sum2-/NAME.counts-Tensoren; diese Datei hat keine</translation>
    </message>
    <message>
        <source>imatrix: the capture&apos;s &apos;%1&apos; has %2 input channels, tensor &apos;%3&apos; has %4</source>
        <translation>imatrix: „%1“ der Aufzeichnung hat %2 Eingangskanäle, der Tensor „%3“ hat %4</translation>
    </message>
    <message>
        <source>imatrix: no module of the capture pairs with a tensor of &apos;%1&apos; (paired by HF name; architecture &apos;%2&apos;)</source>
        <translation>imatrix: kein Modul der Aufzeichnung passt zu einem Tensor von „%1“ (gekoppelt über den HF-Namen; Architektur „%2“)</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is a Quantscope capture, not llama.cpp&apos;s imatrix: pair it with --capture (and imatrix=true in the gguf spec)</source>
        <translation>„%1“ ist eine Quantscope-Aufzeichnung, keine imatrix von llama.cpp: koppeln Sie sie mit --capture (und imatrix=true in der gguf-Spezifikation)</translation>
    </message>
    <message>
        <source>the importance matrix holds %1 weights for &apos;%2&apos;, the tensor&apos;s rows have %3 columns</source>
        <translation>die Wichtigkeitsmatrix enthält %1 Gewichte für „%2“, die Zeilen des Tensors haben %3 Spalten</translation>
    </message>
    <message>
        <source>the importance matrix has no entry for this tensor (looked up as %1 among its %2 entries)</source>
        <translation>die Wichtigkeitsmatrix hat keinen Eintrag für diesen Tensor (gesucht als %1 unter ihren %2 Einträgen)</translation>
    </message>
    <message>
        <source>%1: method &apos;awq&apos; — its checkpoint needs 1/s* folded into the op before the module (an RMSNorm weight, up_proj&apos;s or v_proj&apos;s rows), which this per-module writer does not do; export the recipe for llm-compressor (AWQModifier) or quantize with gptq or int</source>
        <translation>%1: Methode „awq“ — ihr Checkpoint braucht 1/s* eingefaltet in die Operation vor dem Modul (ein RMSNorm-Gewicht, die Zeilen von up_proj oder v_proj), was dieser modulweise Writer nicht tut; exportieren Sie das Rezept für llm-compressor (AWQModifier) oder quantisieren Sie mit gptq oder int</translation>
    </message>
    <message>
        <source>%1: method &apos;%2&apos; — Quark&apos;s real_quantized checkpoint layout written here holds INT4 per output channel or per group along K, and ProgressiveSpec FP8 per tensor → INT4 per channel</source>
        <translation>%1: Methode „%2“ — das hier geschriebene real_quantized-Checkpoint-Layout von Quark enthält INT4 pro Ausgabekanal oder pro Gruppe entlang K sowie ProgressiveSpec FP8 pro Tensor → INT4 pro Kanal</translation>
    </message>
    <message>
        <source>K = %1 is not a multiple of group %2 — Quark&apos;s PerGroup observer raises &quot;not divisible by group_size&quot;; choose a group that divides K or exclude the module</source>
        <translation>K = %1 ist kein Vielfaches der Gruppe %2 — der PerGroup-Observer von Quark meldet &quot;not divisible by group_size&quot;; wählen Sie eine Gruppe, die K teilt, oder schließen Sie das Modul aus</translation>
    </message>
    <message>
        <source>%1: INT %2 scales — the %3 writer stores INT per group or per output channel</source>
        <translation>%1: INT-Skalen %2 — der %3-Writer speichert INT pro Gruppe oder pro Ausgabekanal</translation>
    </message>
    <message>
        <source>%1: compressed-tensors format %2 — the checkpoint writer stores pack-quantized (INT), float-quantized (FP8) and nvfp4-pack-quantized</source>
        <translation>%1: compressed-tensors-Format %2 — der Checkpoint-Writer speichert pack-quantized (INT), float-quantized (FP8) und nvfp4-pack-quantized</translation>
    </message>
    <message>
        <source>K = %1 is not a multiple of group %2 — compressed-tensors 0.20 raises &quot;tensor column shape must be divisble by the given group_size&quot; (quantization/lifecycle/forward_helpers.py) when it quantizes or decompresses such groups; choose a group that divides K or exclude the module</source>
        <translation>K = %1 ist kein Vielfaches der Gruppe %2 — compressed-tensors 0.20 meldet &quot;tensor column shape must be divisble by the given group_size&quot; (quantization/lifecycle/forward_helpers.py), wenn es solche Gruppen quantisiert oder dekomprimiert; wählen Sie eine Gruppe, die K teilt, oder schließen Sie das Modul aus</translation>
    </message>
    <message>
        <source>FP8 blocks of %1 do not tile it — vLLM&apos;s block kernels need K a multiple of the block and ragged blocks load with wrong weights; exclude the module or use per-channel FP8</source>
        <translation>FP8-Blöcke von %1 zerlegen es nicht lückenlos — die Block-Kernel von vLLM brauchen K als Vielfaches des Blocks, und unvollständige Blöcke laden falsche Gewichte; schließen Sie das Modul aus oder verwenden Sie FP8 pro Kanal</translation>
    </message>
    <message>
        <source>K is not a multiple of NVFP4&apos;s 16-element groups</source>
        <translation>K ist kein Vielfaches der 16-Element-Gruppen von NVFP4</translation>
    </message>
    <message>
        <source>%1: the FP8 block layout holds FP8 E4M3 per square block (method fp8, granularity block); this is %2</source>
        <translation>%1: das FP8-Block-Layout enthält FP8 E4M3 pro quadratischem Block (Methode fp8, Granularität block); dies ist %2</translation>
    </message>
    <message>
        <source>FP8 blocks of %1 do not tile it — transformers&apos; FineGrainedFP8 refuses it (&quot;not divisible by scale grid&quot;); exclude the module or choose a block that divides both dimensions</source>
        <translation>FP8-Blöcke von %1 zerlegen es nicht lückenlos — FineGrainedFP8 von transformers lehnt es ab (&quot;not divisible by scale grid&quot;); schließen Sie das Modul aus oder wählen Sie einen Block, der beide Dimensionen teilt</translation>
    </message>
    <message>
        <source>%1: the FP8 block layout holds FP8 E4M3 block results</source>
        <translation>%1: das FP8-Block-Layout enthält FP8-E4M3-Blockergebnisse</translation>
    </message>
    <message>
        <source>dense (not quantized)</source>
        <translation>dicht (nicht quantisiert)</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is a config format; checkpoints are written as quark, compressed-tensors, fp8-block or quantscope</source>
        <translation>„%1“ ist ein Konfigurationsformat; Checkpoints werden als quark, compressed-tensors, fp8-block oder quantscope geschrieben</translation>
    </message>
    <message>
        <source>activations fp8-static: the %1 layout stores no input scales</source>
        <translation>Aktivierungen fp8-static: das %1-Layout speichert keine Eingabeskalen</translation>
    </message>
    <message>
        <source>activations fp8-static: static input scales come from calibration data, and this export has none — a checkpoint that declares them without `input_scale` tensors loads with NaN outputs (transformers) or is refused (Quark). Give a capture of the model&apos;s activations (--capture CAP.safetensors, from quantscope-cli capture), use --activations fp8-dynamic, or export the recipe as an llm-compressor recipe or a Quark script, which calibrate</source>
        <translation>Aktivierungen fp8-static: statische Eingabeskalen stammen aus Kalibrierdaten, und dieser Export hat keine — ein Checkpoint, der sie ohne `input_scale`-Tensoren deklariert, lädt mit NaN-Ausgaben (transformers) oder wird abgelehnt (Quark). Geben Sie eine Aufzeichnung der Aktivierungen des Modells an (--capture CAP.safetensors, aus quantscope-cli capture), verwenden Sie --activations fp8-dynamic, oder exportieren Sie das Rezept als llm-compressor-Rezept oder Quark-Skript, die selbst kalibrieren</translation>
    </message>
    <message>
        <source>%1: kept dense by default — %2 (--no-default-excludes quantizes it)</source>
        <translation>%1: standardmäßig dicht belassen — %2 (--no-default-excludes quantisiert es)</translation>
    </message>
    <message>
        <source>%1: kept dense by default — %2 (--no-default-excludes and a rule naming it quantize it)</source>
        <translation>%1: standardmäßig dicht belassen — %2 (--no-default-excludes und eine Regel, die es nennt, quantisieren es)</translation>
    </message>
    <message>
        <source>%1: %2 gives %3 specs (candidates a scan compares); an export needs the one chosen</source>
        <translation>%1: %2 ergibt %3 Spezifikationen (Kandidaten, die ein Scan vergleicht); ein Export braucht die gewählte</translation>
    </message>
    <message>
        <source>an embedding — %1 quantizes Linear layers; exclude it</source>
        <translation>eine Einbettung — %1 quantisiert Linear-Schichten; schließen Sie sie aus</translation>
    </message>
    <message>
        <source>the recipe quantizes no module of %1 (after the default exclusions): nothing would be exported</source>
        <translation>das Rezept quantisiert kein Modul von %1 (nach den Standardausschlüssen): nichts würde exportiert</translation>
    </message>
    <message>
        <source>the recipe quantizes no module of %1: nothing would be exported</source>
        <translation>das Rezept quantisiert kein Modul von %1: nichts würde exportiert</translation>
    </message>
    <message>
        <source>%1: the capture %2 holds no inputs of this module, so it has no static input scale</source>
        <translation>%1: die Aufzeichnung %2 enthält keine Eingaben dieses Moduls, daher hat es keine statische Eingabeskala</translation>
    </message>
    <message>
        <source>%1: its captured inputs are not finite — no static input scale can be derived</source>
        <translation>%1: seine aufgezeichneten Eingaben sind nicht endlich — es lässt sich keine statische Eingabeskala ableiten</translation>
    </message>
    <message>
        <source>%1: its captured inputs are all zero — no static input scale can be derived</source>
        <translation>%1: seine aufgezeichneten Eingaben sind alle null — es lässt sich keine statische Eingabeskala ableiten</translation>
    </message>
    <message>
        <source>fused group %1: %2 is %3 but %4 is %5 — serving engines (vLLM, SGLang) fuse these into one layer with one scheme and refuse the checkpoint; give the group one spec</source>
        <translation>fusionierte Gruppe %1: %2 ist %3, aber %4 ist %5 — Serving-Engines (vLLM, SGLang) fusionieren diese zu einer Schicht mit einem Schema und lehnen den Checkpoint ab; geben Sie der Gruppe eine Spezifikation</translation>
    </message>
    <message>
        <source>%1: the recipe gives %2 but %3 would read the written config as %4 — the config cannot express this precedence; refusing rather than writing a checkpoint the toolkit reads differently</source>
        <translation>%1: das Rezept ergibt %2, aber %3 würde die geschriebene Konfiguration als %4 lesen — die Konfiguration kann diesen Vorrang nicht ausdrücken; abgelehnt, statt einen Checkpoint zu schreiben, den das Toolkit anders liest</translation>
    </message>
    <message>
        <source>%1: the recipe gives %2 (%3) but %4 would read the written config as %5 — the config cannot express this precedence; refusing rather than writing a checkpoint the toolkit reads differently</source>
        <translation>%1: das Rezept ergibt %2 (%3), aber %4 würde die geschriebene Konfiguration als %5 lesen — die Konfiguration kann diesen Vorrang nicht ausdrücken; abgelehnt, statt einen Checkpoint zu schreiben, den das Toolkit anders liest</translation>
    </message>
    <message>
        <source>wrote %1</source>
        <translation>%1 geschrieben</translation>
    </message>
    <message>
        <source>lm_head is quantized: config.json&apos;s tie_word_embeddings set to false (transformers would otherwise tie it back to the dense embeddings)</source>
        <translation>lm_head ist quantisiert: tie_word_embeddings in config.json auf false gesetzt (transformers würde es sonst wieder an die dichten Einbettungen binden)</translation>
    </message>
    <message>
        <source>re-read: %1 is not detected as quantized in the written file</source>
        <translation>erneutes Lesen: %1 wird in der geschriebenen Datei nicht als quantisiert erkannt</translation>
    </message>
    <message>
        <source>re-read: %1 decodes to other values than the quantizer&apos;s Ŵ</source>
        <translation>erneutes Lesen: %1 dekodiert zu anderen Werten als das Ŵ des Quantisierers</translation>
    </message>
    <message>
        <source>re-read: %1 stores %2 bits per code, declared %3</source>
        <translation>erneutes Lesen: %1 speichert %2 Bit pro Code, deklariert %3</translation>
    </message>
    <message>
        <source>re-read: %1 reads back as quantized, but the recipe keeps it dense</source>
        <translation>erneutes Lesen: %1 wird als quantisiert zurückgelesen, aber das Rezept belässt es dicht</translation>
    </message>
    <message>
        <source>re-read: %1 stores the spec %2, the recipe gives %3</source>
        <translation>erneutes Lesen: %1 speichert die Spezifikation %2, das Rezept ergibt %3</translation>
    </message>
    <message>
        <source>per-tensor min-max (max |x| / 448) over the capture %1 (%2 tokens, input sha256 %3)</source>
        <translation>Min-Max pro Tensor (max |x| / 448) über die Aufzeichnung %1 (%2 Token, Eingabe-sha256 %3)</translation>
    </message>
    <message>
        <source>the output folder exists and is not empty</source>
        <translation>der Ausgabeordner existiert und ist nicht leer</translation>
    </message>
    <message>
        <source>cannot create the output folder</source>
        <translation>der Ausgabeordner kann nicht angelegt werden</translation>
    </message>
    <message>
        <source>no input tensor %1 for the output tensor %2</source>
        <translation>kein Eingabetensor %1 für den Ausgabetensor %2</translation>
    </message>
    <message>
        <source>cannot rename the written checkpoint into place</source>
        <translation>der geschriebene Checkpoint kann nicht an seinen Platz umbenannt werden</translation>
    </message>
    <message>
        <source>compressed-tensors INT format &apos;%1&apos; — pack-quantized or int-quantized</source>
        <translation>compressed-tensors-INT-Format „%1“ — pack-quantized oder int-quantized</translation>
    </message>
    <message>
        <source>%1: rounding half_away — compressed-tensors rounds half to even</source>
        <translation>%1: Rundung half_away — compressed-tensors rundet Hälften zur geraden Zahl</translation>
    </message>
    <message>
        <source>%1: E8M0 scales — compressed-tensors&apos; integer schemes store float scales</source>
        <translation>%1: E8M0-Skalen — die Ganzzahlschemata von compressed-tensors speichern Gleitkommaskalen</translation>
    </message>
    <message>
        <source>%1: channel axis 1 — compressed-tensors&apos; channel strategy is per output row</source>
        <translation>%1: Kanalachse 1 — die Kanalstrategie von compressed-tensors gilt pro Ausgabezeile</translation>
    </message>
    <message>
        <source>%1: FP8 E5M2 — compressed-tensors&apos; float8 is E4M3</source>
        <translation>%1: FP8 E5M2 — float8 von compressed-tensors ist E4M3</translation>
    </message>
    <message>
        <source>%1: NVFP4 group %2 — compressed-tensors&apos; NVFP4 has 16-element groups</source>
        <translation>%1: NVFP4-Gruppe %2 — NVFP4 von compressed-tensors hat Gruppen aus 16 Elementen</translation>
    </message>
    <message>
        <source>%1: MXFP4 group %2 — compressed-tensors&apos; MXFP4 has 32-element blocks</source>
        <translation>%1: MXFP4-Gruppe %2 — MXFP4 von compressed-tensors hat Blöcke aus 32 Elementen</translation>
    </message>
    <message>
        <source>%1: method &apos;%2&apos; — %3</source>
        <translation>%1: Methode „%2“ — %3</translation>
    </message>
    <message>
        <source>MiLo&apos;s low-rank compensators (milo_U, milo_V) have no compressed-tensors scheme</source>
        <translation>die Low-Rank-Kompensatoren von MiLo (milo_U, milo_V) haben kein compressed-tensors-Schema</translation>
    </message>
    <message>
        <source>HQQ&apos;s float zero points have no compressed-tensors scheme (its zero points are integers)</source>
        <translation>die Gleitkomma-Nullpunkte von HQQ haben kein compressed-tensors-Schema (dessen Nullpunkte sind ganzzahlig)</translation>
    </message>
    <message>
        <source>compressed-tensors has no two-stage (ProgressiveSpec) scheme; export it to Quark</source>
        <translation>compressed-tensors hat kein zweistufiges Schema (ProgressiveSpec); exportieren Sie es nach Quark</translation>
    </message>
    <message>
        <source>constOpt&apos;s fixed-constant codebook has no compressed-tensors scheme</source>
        <translation>das Codebuch mit fester Konstante von constOpt hat kein compressed-tensors-Schema</translation>
    </message>
    <message>
        <source>%1: FP8 activations with %2 %3-bit weights — this exporter writes FP8 activations for FP8 weights only</source>
        <translation>%1: FP8-Aktivierungen mit %2-%3-Bit-Gewichten — dieser Exporter schreibt FP8-Aktivierungen nur für FP8-Gewichte</translation>
    </message>
    <message>
        <source>%1 has %2 specs (candidates a scan compares); an export needs the one chosen</source>
        <translation>%1 hat %2 Spezifikationen (Kandidaten, die ein Scan vergleicht); ein Export braucht die gewählte</translation>
    </message>
    <message>
        <source>%1 comes after the catch-all %2 and wins no module; remove it or move it first</source>
        <translation>%1 steht nach der Auffangregel %2 und gewinnt kein Modul; entfernen Sie es oder stellen Sie es nach vorn</translation>
    </message>
    <message>
        <source>the recipe has no rule: a compressed-tensors config needs at least one config group</source>
        <translation>das Rezept hat keine Regel: eine compressed-tensors-Konfiguration braucht mindestens eine Konfigurationsgruppe</translation>
    </message>
    <message>
        <source>compressed-tensors&apos; kv_cache_scheme</source>
        <translation>das kv_cache_scheme von compressed-tensors</translation>
    </message>
    <message>
        <source>%1: INT%2 — this exporter writes Quark&apos;s int4 and int8 dtypes only</source>
        <translation>%1: INT%2 — dieser Exporter schreibt nur die dtypes int4 und int8 von Quark</translation>
    </message>
    <message>
        <source>%1: rounding half_away — Quark rounds half to even (round_method half_even)</source>
        <translation>%1: Rundung half_away — Quark rundet Hälften zur geraden Zahl (round_method half_even)</translation>
    </message>
    <message>
        <source>%1: scale dtype %2 — Quark&apos;s integer specs here store float32 scales (scale_type float)</source>
        <translation>%1: Skalen-dtype %2 — die Ganzzahl-Spezifikationen von Quark speichern hier float32-Skalen (scale_type float)</translation>
    </message>
    <message>
        <source>%1: integer block scales — Quark has no 2-D block scheme for integers</source>
        <translation>%1: ganzzahlige Blockskalen — Quark hat kein 2-D-Blockschema für Ganzzahlen</translation>
    </message>
    <message>
        <source>%1: FP8 block scales — this exporter writes Quark FP8 per tensor or per channel only</source>
        <translation>%1: FP8-Blockskalen — dieser Exporter schreibt Quark-FP8 nur pro Tensor oder pro Kanal</translation>
    </message>
    <message>
        <source>Quark has no such scheme</source>
        <translation>Quark hat kein solches Schema</translation>
    </message>
    <message>
        <source>MiLo&apos;s low-rank compensators (milo_U, milo_V) have no place in a Quark config</source>
        <translation>die Low-Rank-Kompensatoren von MiLo (milo_U, milo_V) haben in einer Quark-Konfiguration keinen Platz</translation>
    </message>
    <message>
        <source>HQQ&apos;s float zero points and optimised scales have no Quark scheme</source>
        <translation>die Gleitkomma-Nullpunkte und optimierten Skalen von HQQ haben kein Quark-Schema</translation>
    </message>
    <message>
        <source>constOpt&apos;s fixed-constant codebook has no Quark scheme</source>
        <translation>das Codebuch mit fester Konstante von constOpt hat kein Quark-Schema</translation>
    </message>
    <message>
        <source>this exporter does not write Quark&apos;s FP4 schemes yet</source>
        <translation>dieser Exporter schreibt die FP4-Schemata von Quark noch nicht</translation>
    </message>
    <message>
        <source>%1: regex &apos;%2&apos; — Quark matches fnmatch patterns only; write the rule in the fnmatch dialect</source>
        <translation>%1: regulärer Ausdruck „%2“ — Quark gleicht nur fnmatch-Muster ab; schreiben Sie die Regel im fnmatch-Dialekt</translation>
    </message>
    <message>
        <source>the recipe has no catch-all rule (&apos;*&apos;): Quark quantizes every module the exclude list does not name with global_quant_config — end the rules with &apos;*&apos; or exclude the modules no rule should quantize</source>
        <translation>das Rezept hat keine Auffangregel („*“): Quark quantisiert jedes Modul, das die exclude-Liste nicht nennt, mit global_quant_config — beenden Sie die Regeln mit „*“ oder schließen Sie die Module aus, die keine Regel quantisieren soll</translation>
    </message>
    <message>
        <source>layer &apos;%1&apos;</source>
        <translation>Schicht „%1“</translation>
    </message>
    <message>
        <source>Quark&apos;s kv_cache_quant_config</source>
        <translation>die kv_cache_quant_config von Quark</translation>
    </message>
    <message>
        <source>kv_cache: Quark gives every &apos;%1&apos; module one layer config; the recipe quantizes them differently (%2)</source>
        <translation>kv_cache: Quark gibt jedem „%1“-Modul eine Schichtkonfiguration; das Rezept quantisiert sie unterschiedlich (%2)</translation>
    </message>
    <message>
        <source>the catch-all rule</source>
        <translation>die Auffangregel</translation>
    </message>
    <message>
        <source>%1: the Quark script writes FP8E4M3PerTensorSpec, Int4PerChannelSpec and Int4PerGroupSpec (and their ProgressiveSpec); use --format quark for this spec</source>
        <translation>%1: das Quark-Skript schreibt FP8E4M3PerTensorSpec, Int4PerChannelSpec und Int4PerGroupSpec (und deren ProgressiveSpec); verwenden Sie --format quark für diese Spezifikation</translation>
    </message>
    <message>
        <source>kv_cache: %1 states one KV-cache scheme for every attention layer; the recipe gives layers different schemes (boundary %2, %3 range(s)) — keep the boundary layers quantized or export without kv_cache</source>
        <translation>kv_cache: %1 legt ein KV-Cache-Schema für alle Attention-Schichten fest; das Rezept gibt Schichten verschiedene Schemata (boundary %2, %3 Bereich(e)) — belassen Sie die Randschichten quantisiert oder exportieren Sie ohne kv_cache</translation>
    </message>
    <message>
        <source>kv_cache: %1 states one scheme for K and V; the recipe has K %2, V %3</source>
        <translation>kv_cache: %1 legt ein Schema für K und V fest; das Rezept hat K %2, V %3</translation>
    </message>
    <message>
        <source>kv_cache: fp8-head — %1&apos;s KV cache is FP8 per tensor</source>
        <translation>kv_cache mit fp8-head: der KV-Cache von %1 ist FP8 pro Tensor</translation>
    </message>
    <message>
        <source>kv_cache: %1 is a vLLM run-time setting (--kv-cache-dtype fp8), not a checkpoint config; use fp8 (calibrated amax/448) to write k_scale/v_scale</source>
        <translation>kv_cache: %1 ist eine Laufzeiteinstellung von vLLM (--kv-cache-dtype fp8), keine Checkpoint-Konfiguration; verwenden Sie fp8 (kalibriertes amax/448), um k_scale/v_scale zu schreiben</translation>
    </message>
    <message>
        <source>kv_cache: %1 is a vLLM run-time setting (--kv-cache-dtype fp8 --calculate-kv-scales), not a checkpoint config; use fp8 (calibrated amax/448) to write k_scale/v_scale</source>
        <translation>kv_cache: %1 ist eine Laufzeiteinstellung von vLLM (--kv-cache-dtype fp8 --calculate-kv-scales), keine Checkpoint-Konfiguration; verwenden Sie fp8 (kalibriertes amax/448), um k_scale/v_scale zu schreiben</translation>
    </message>
    <message>
        <source>kv_cache: %1 — %2 and vLLM read an FP8 KV cache only (num_bits 8, type float); a 4-bit or BF16 KV cache has no config to state it</source>
        <translation>kv_cache: %1 — %2 und vLLM lesen nur einen FP8-KV-Cache (num_bits 8, type float); für einen 4-Bit- oder BF16-KV-Cache gibt es keine Konfiguration</translation>
    </message>
    <message>
        <source>rule &apos;%1&apos;: llm-compressor runs one GPTQModifier, and the recipe&apos;s gptq specs differ in block_size, dampening or actorder</source>
        <translation>Regel „%1“: llm-compressor führt einen GPTQModifier aus, und die gptq-Spezifikationen des Rezepts unterscheiden sich in block_size, dampening oder actorder</translation>
    </message>
    <message>
        <source>rule &apos;%1&apos;: llm-compressor runs one AWQModifier, and the recipe&apos;s awq specs differ in n_grid or duo_scaling</source>
        <translation>Regel „%1“: llm-compressor führt einen AWQModifier aus, und die awq-Spezifikationen des Rezepts unterscheiden sich in n_grid oder duo_scaling</translation>
    </message>
    <message>
        <source>pack method &apos;%1&apos; is not one of Quark&apos;s: reorder, order</source>
        <translation>die Packmethode „%1“ ist keine von Quark: reorder, order</translation>
    </message>
    <message>
        <source>a Quantscope recipe holds weight specs only; activations &apos;%1&apos; cannot be written to it</source>
        <translation>ein Quantscope-Rezept enthält nur Gewichtsspezifikationen; die Aktivierungen „%1“ können nicht hineingeschrieben werden</translation>
    </message>
    <message>
        <source>unknown export format</source>
        <translation>unbekanntes Exportformat</translation>
    </message>
    <message>
        <source>cannot write the export</source>
        <translation>der Export kann nicht geschrieben werden</translation>
    </message>
    <message>
        <source>writing the export failed</source>
        <translation>das Schreiben des Exports ist fehlgeschlagen</translation>
    </message>
    <message>
        <source>cannot rename the export into place</source>
        <translation>der Export kann nicht an seinen Platz umbenannt werden</translation>
    </message>
    <message>
        <source>%1: compressed-tensors float-quantized holds FP8 E4M3 (this is %2)</source>
        <translation>%1: float-quantized von compressed-tensors enthält FP8 E4M3 (dies ist %2)</translation>
    </message>
    <message>
        <source>%1: the pack-quantized writer takes INT group or per-output-channel results</source>
        <translation>%1: der pack-quantized-Writer nimmt INT-Ergebnisse pro Gruppe oder pro Ausgabekanal</translation>
    </message>
    <message>
        <source>%1: the result holds no codes</source>
        <translation>%1: das Ergebnis enthält keine Codes</translation>
    </message>
    <message>
        <source>Quark pack_method &apos;%1&apos;: &apos;reorder&apos; or &apos;order&apos; is written</source>
        <translation>Quark-pack_method „%1“: geschrieben wird &apos;reorder&apos; oder &apos;order&apos;</translation>
    </message>
    <message>
        <source>%1: Quark&apos;s real_quantized INT4 layout holds INT4 per output channel or per group along K, and ProgressiveSpec FP8 → INT4 per channel (this is %2, %3 bits, %4)</source>
        <translation>%1: das real_quantized-INT4-Layout von Quark enthält INT4 pro Ausgabekanal oder pro Gruppe entlang K sowie ProgressiveSpec FP8 → INT4 pro Kanal (dies ist %2, %3 Bit, %4)</translation>
    </message>
    <message>
        <source>%1: ProgressiveSpec is written with one FP8 per-tensor stage-1 scale</source>
        <translation>%1: ProgressiveSpec wird mit einer FP8-Skala pro Tensor für Stufe 1 geschrieben</translation>
    </message>
    <message>
        <source>%1: the layout has one scheme per checkpoint — give one catch-all rule (&apos;*&apos;) with one FP8 block spec and no overrides</source>
        <translation>%1: das Layout hat ein Schema pro Checkpoint — geben Sie eine Auffangregel („*“) mit einer FP8-Block-Spezifikation und ohne Überschreibungen an</translation>
    </message>
    <message>
        <source>%1: the FP8 block layout holds FP8 E4M3 per square block (method fp8, granularity block)</source>
        <translation>%1: das FP8-Block-Layout enthält FP8 E4M3 pro quadratischem Block (Methode fp8, Granularität block)</translation>
    </message>
    <message>
        <source>%1: activations fp8-static — the layout keeps no input scales (dynamic only)</source>
        <translation>%1: Aktivierungen fp8-static — das Layout speichert keine Eingabeskalen (nur dynamisch)</translation>
    </message>
    <message>
        <source>%1: exclude &apos;%2&apos; is a %3 pattern; modules_to_not_convert takes exact module names</source>
        <translation>%1: exclude „%2“ ist ein %3-Muster; modules_to_not_convert nimmt exakte Modulnamen</translation>
    </message>
    <message>
        <source>run `quantscope-cli decode %1 --tensor %2 --out w.npy` first, or pass the module name &apos;%3&apos; to quantize its decoded weights</source>
        <translation>führen Sie zuerst `quantscope-cli decode %1 --tensor %2 --out w.npy` aus, oder übergeben Sie den Modulnamen „%3“, um seine dekodierten Gewichte zu quantisieren</translation>
    </message>
    <message>
        <source>is the %1 of the quantized module &apos;%2&apos; (%3, %4), not weights; %5</source>
        <translation>ist %1 des quantisierten Moduls „%2“ (%3, %4), keine Gewichte; %5</translation>
    </message>
    <message>
        <source>belongs to a quantized module that cannot be decoded (%1); its stored parts are not weights</source>
        <translation>gehört zu einem quantisierten Modul, das sich nicht dekodieren lässt (%1); seine gespeicherten Teile sind keine Gewichte</translation>
    </message>
    <message>
        <source>is stored as %1: integer codes (a packed or quantized tensor, scheme not detected), not weights; %2</source>
        <translation>ist als %1 gespeichert: ganzzahlige Codes (ein gepackter oder quantisierter Tensor, Schema nicht erkannt), keine Gewichte; %2</translation>
    </message>
    <message>
        <source>decoded %1 (%2, %3) to FP32 first</source>
        <translation>%1 (%2, %3) zuerst nach FP32 dekodiert</translation>
    </message>
    <message>
        <source>the native layout stores codes and scales; %1 results are packed ggml blocks and are not saved (decode or compare Ŵ instead)</source>
        <translation>das native Layout speichert Codes und Skalen; %1-Ergebnisse sind gepackte ggml-Blöcke und werden nicht gespeichert (dekodieren oder vergleichen Sie stattdessen Ŵ)</translation>
    </message>
    <message>
        <source>NumPy has no dtype for %1</source>
        <translation>NumPy hat keinen dtype für %1</translation>
    </message>
    <message>
        <source>weight_scale_inv beside a %1 weight; FP8 block checkpoints store F8_E4M3</source>
        <translation>weight_scale_inv neben einem %1-Gewicht; FP8-Block-Checkpoints speichern F8_E4M3</translation>
    </message>
    <message>
        <source>weight is %1; FP8 block weights are [N, K]</source>
        <translation>das Gewicht ist %1; FP8-Block-Gewichte sind [N, K]</translation>
    </message>
    <message>
        <source>FP8 block scales (%1) but config.json gives no quantization_config.weight_block_size; the block size is never derived from shapes</source>
        <translation>FP8-Blockskalen (%1), aber config.json gibt keine quantization_config.weight_block_size an; die Blockgröße wird nie aus Formen abgeleitet</translation>
    </message>
    <message>
        <source>weight_scale_inv has dtype %1; F32 expected</source>
        <translation>weight_scale_inv hat den dtype %1; erwartet: F32</translation>
    </message>
    <message>
        <source>native module %1: %2</source>
        <translation>natives Modul %1: %2</translation>
    </message>
    <message>
        <source>the file has no quantscope-native metadata</source>
        <translation>die Datei hat keine quantscope-native-Metadaten</translation>
    </message>
    <message>
        <source>layout version %1 (this build reads %2; quantize --save it again)</source>
        <translation>Layoutversion %1 (dieser Build liest %2; erneut mit quantize --save speichern)</translation>
    </message>
    <message>
        <source>not listed in the metadata</source>
        <translation>nicht in den Metadaten aufgeführt</translation>
    </message>
    <message>
        <source>unknown granularity &apos;%1&apos;</source>
        <translation>unbekannte Granularität „%1“</translation>
    </message>
    <message>
        <source>no layout in the metadata</source>
        <translation>kein Layout in den Metadaten</translation>
    </message>
    <message>
        <source>%1 &apos;%2&apos; is not a dtype of the native layout</source>
        <translation>%1 „%2“ ist kein dtype des nativen Layouts</translation>
    </message>
    <message>
        <source>the part %1 is missing</source>
        <translation>der Teil %1 fehlt</translation>
    </message>
    <message>
        <source>%1 holds %2 elements, %3 expected</source>
        <translation>%1 enthält %2 Elemente, erwartet: %3</translation>
    </message>
    <message>
        <source>compensator format &apos;%1&apos; with group %2</source>
        <translation>Kompensatorformat „%1“ mit Gruppe %2</translation>
    </message>
    <message>
        <source>float zero points (%1)</source>
        <translation>Gleitkomma-Nullpunkte (%1)</translation>
    </message>
    <message>
        <source>rank-%1 compensator U·V (%2)</source>
        <translation>Kompensator U·V mit Rang %1 (%2)</translation>
    </message>
    <message>
        <source>%1 %2x%3 (grid %4x%5) does not describe the tensor&apos;s %6 elements</source>
        <translation>%1 %2×%3 (Raster %4×%5) beschreibt die %6 Elemente des Tensors nicht</translation>
    </message>
    <message>
        <source>%1: its groups do not fit its scale grid of %2x%3</source>
        <translation>%1: seine Gruppen passen nicht zu seinem Skalenraster %2×%3</translation>
    </message>
    <message>
        <source>the spec&apos;s method is not the module&apos;s method &apos;%1&apos;</source>
        <translation>die Methode der Spezifikation ist nicht die Methode „%1“ des Moduls</translation>
    </message>
    <message>
        <source>%1 without its outer scales (outer_layout)</source>
        <translation>%1 ohne seine äußeren Skalen (outer_layout)</translation>
    </message>
    <message>
        <source>the compensators are not U [%1, rank] and V [rank, %2] of rank %3</source>
        <translation>die Kompensatoren sind nicht U [%1, rank] und V [rank, %2] mit Rang %3</translation>
    </message>
    <message>
        <source>source_dtype &apos;%1&apos;</source>
        <translation>source_dtype „%1“ ungültig</translation>
    </message>
    <message>
        <source>the layout %1x%2 does not cover the shape %3</source>
        <translation>das Layout %1×%2 deckt die Form %3 nicht ab</translation>
    </message>
    <message>
        <source>qs_codes is %1, the metadata says %2</source>
        <translation>qs_codes hat den Typ %1, die Metadaten nennen %2</translation>
    </message>
    <message>
        <source>bad metadata: %1</source>
        <translation>fehlerhafte Metadaten: %1</translation>
    </message>
    <message>
        <source>session: missing &apos;%1&apos;</source>
        <translation>Sitzung: „%1“ fehlt</translation>
    </message>
    <message>
        <source>session: &apos;%1&apos; must hold integers in range, got %2</source>
        <translation>Sitzung: „%1“ muss ganze Zahlen im gültigen Bereich enthalten, erhalten: %2</translation>
    </message>
    <message>
        <source>session: &apos;%1&apos; has the wrong type</source>
        <translation>Sitzung: „%1“ hat den falschen Typ</translation>
    </message>
    <message>
        <source>not a Quantscope session (no &quot;format&quot;: &quot;quantscope-session&quot;)</source>
        <translation>keine Quantscope-Sitzung (kein &quot;format&quot;: &quot;quantscope-session&quot;)</translation>
    </message>
    <message>
        <source>session version %1 is newer than this Quantscope reads (%2)</source>
        <translation>die Sitzungsversion %1 ist neuer, als dieses Quantscope liest (%2)</translation>
    </message>
    <message>
        <source>session: scan.lines must be an array</source>
        <translation>Sitzung: scan.lines muss ein Array sein</translation>
    </message>
    <message>
        <source>cannot open the session</source>
        <translation>die Sitzung kann nicht geöffnet werden</translation>
    </message>
    <message>
        <source>cannot read the session</source>
        <translation>die Sitzung kann nicht gelesen werden</translation>
    </message>
    <message>
        <source>not a Quantscope session (not valid JSON)</source>
        <translation>keine Quantscope-Sitzung (kein gültiges JSON)</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is not a number</source>
        <translation>„%1“ ist keine Zahl</translation>
    </message>
    <message>
        <source>&apos;%1&apos; has the wrong type</source>
        <translation>„%1“ hat den falschen Typ</translation>
    </message>
    <message>
        <source>&apos;%1&apos; must hold integers in range, got %2</source>
        <translation>„%1“ muss ganze Zahlen im gültigen Bereich enthalten, erhalten: %2</translation>
    </message>
    <message>
        <source>%1 needs %2 MiB, more than the memory limit of %3 MiB (this machine&apos;s memory, or QUANTSCOPE_MEMORY_LIMIT_MB); refused before allocating</source>
        <translation>%1 braucht %2 MiB, mehr als die Speichergrenze von %3 MiB (der Speicher dieses Rechners oder QUANTSCOPE_MEMORY_LIMIT_MB); vor dem Reservieren abgelehnt</translation>
    </message>
    <message>
        <source>a mapped file</source>
        <translation>eine eingeblendete Datei</translation>
    </message>
    <message>
        <source>the file was truncated or replaced while it was read (bus error reading its mapping)</source>
        <translation>die Datei wurde beim Lesen gekürzt oder ersetzt (Busfehler beim Lesen ihrer Einblendung)</translation>
    </message>
    <message>
        <source>cannot create a pipe: %1</source>
        <translation>es kann keine Pipe angelegt werden: %1</translation>
    </message>
    <message>
        <source>no program to run</source>
        <translation>kein Programm zum Ausführen</translation>
    </message>
    <message>
        <source>cannot start &apos;%1&apos;: %2</source>
        <translation>„%1“ kann nicht gestartet werden: %2</translation>
    </message>
    <message>
        <source>cannot create folder: %1</source>
        <translation>der Ordner kann nicht angelegt werden: %1</translation>
    </message>
    <message>
        <source>demo checkpoint, seed %1, generated in code</source>
        <translation>Demo-Checkpoint, Seed %1, im Code erzeugt</translation>
    </message>
    <message>
        <source>weight_packed U8 (FP4 pairs) without weight_scale: the scales are missing</source>
        <translation>weight_packed U8 (FP4-Paare) ohne weight_scale: die Skalen fehlen</translation>
    </message>
    <message>
        <source>weight_packed U8 holds FP4 pairs, but %1 says %2 %3 bits</source>
        <translation>weight_packed U8 enthält FP4-Paare, aber %1 nennt %2 mit %3 Bit</translation>
    </message>
    <message>
        <source>weight_packed is %1; FP4 pairs are [N, K/2]</source>
        <translation>weight_packed hat die Form %1; FP4-Paare sind [N, K/2]</translation>
    </message>
    <message>
        <source>weight_scale has dtype %1; NVFP4 uses F8_E4M3</source>
        <translation>weight_scale hat den dtype %1; NVFP4 verwendet F8_E4M3</translation>
    </message>
    <message>
        <source>NVFP4 weight without weight_global_scale: the global scale is missing</source>
        <translation>NVFP4-Gewicht ohne weight_global_scale: die globale Skala fehlt</translation>
    </message>
    <message>
        <source>weight_scale has dtype %1; MXFP4 uses U8 (E8M0 exponents)</source>
        <translation>weight_scale hat den dtype %1; MXFP4 verwendet U8 (E8M0-Exponenten)</translation>
    </message>
    <message>
        <source>weight_global_scale is %1; one float is expected</source>
        <translation>weight_global_scale lautet %1; erwartet wird eine Gleitkommazahl</translation>
    </message>
    <message>
        <source>NVFP4 (group 16)</source>
        <translation>NVFP4 (Gruppe 16)</translation>
    </message>
    <message>
        <source>MXFP4 (group 32)</source>
        <translation>MXFP4 (Gruppe 32)</translation>
    </message>
    <message>
        <source>quantized %1 weight (%2) without weight_scale: the scales are missing</source>
        <translation>quantisiertes %1-Gewicht (%2) ohne weight_scale: die Skalen fehlen</translation>
    </message>
    <message>
        <source>weight is %1, but %2 says type %3</source>
        <translation>das Gewicht ist %1, aber %2 nennt den Typ %3</translation>
    </message>
    <message>
        <source>the weight is stored unpacked (%1), but %2 says format &apos;%3&apos;: read as stored (compressed-tensors decides per module)</source>
        <translation>das Gewicht ist ungepackt gespeichert (%1), aber %2 nennt das Format „%3“: so gelesen, wie gespeichert (compressed-tensors entscheidet pro Modul)</translation>
    </message>
    <message>
        <source>weight is %1; [N, K] or [E, N, K] expected</source>
        <translation>das Gewicht ist %1; erwartet: [N, K] oder [E, N, K]</translation>
    </message>
    <message>
        <source>weight_scale has dtype %1; a float dtype is expected</source>
        <translation>weight_scale hat den dtype %1; erwartet wird ein Gleitkomma-dtype</translation>
    </message>
    <message>
        <source>weight_scale %1 does not start with the experts of the weight</source>
        <translation>weight_scale %1 beginnt nicht mit den Experten des Gewichts</translation>
    </message>
    <message>
        <source>asymmetric quantization (%1) but weight_zero_point is missing</source>
        <translation>asymmetrische Quantisierung (%1), aber weight_zero_point fehlt</translation>
    </message>
    <message>
        <source>weight_zero_point %1 does not match the scale grid %2</source>
        <translation>weight_zero_point %1 passt nicht zum Skalenraster %2</translation>
    </message>
    <message>
        <source>weight_zero_point present although the config says symmetric; ignored</source>
        <translation>weight_zero_point vorhanden, obwohl die Konfiguration symmetrisch angibt; ignoriert</translation>
    </message>
    <message>
        <source>%1 has shape %2, but per-tensor quantization (%3) needs one scale; broadcasting it would have applied %4 different scales to one tensor</source>
        <translation>%1 hat die Form %2, aber Quantisierung pro Tensor (%3) braucht eine Skala; Broadcasting hätte %4 verschiedene Skalen auf einen Tensor angewandt</translation>
    </message>
    <message>
        <source>%1 has shape %2, but per-channel quantization (%3) of N = %4 rows needs [%5, 1]; broadcasting it would not give one scale per output row</source>
        <translation>%1 hat die Form %2, aber Quantisierung pro Kanal (%3) von N = %4 Zeilen braucht [%5, 1]; Broadcasting ergäbe nicht eine Skala pro Ausgabezeile</translation>
    </message>
    <message>
        <source>group quantization in %1 without a positive group_size</source>
        <translation>Gruppenquantisierung in %1 ohne positive group_size</translation>
    </message>
    <message>
        <source>%1 has shape %2, but group %3 along K = %4 (%5) needs [%6, %7]</source>
        <translation>%1 hat die Form %2, aber Gruppe %3 entlang K = %4 (%5) braucht [%6, %7]</translation>
    </message>
    <message>
        <source>%1; broadcasting it would have applied each scale to %2 columns instead of %3</source>
        <translation>%1; Broadcasting hätte jede Skala auf %2 Spalten statt auf %3 angewandt</translation>
    </message>
    <message>
        <source>block quantization in %1 without a block_structure</source>
        <translation>Blockquantisierung in %1 ohne block_structure</translation>
    </message>
    <message>
        <source>%1 has shape %2, but blocks %3x%4 of a [%5, %6] weight (%7) need %8</source>
        <translation>%1 hat die Form %2, aber Blöcke %3×%4 eines [%5, %6]-Gewichts (%7) brauchen %8</translation>
    </message>
    <message>
        <source>strategy &apos;%1&apos; in %2 is not supported for weights</source>
        <translation>die Strategie „%1“ in %2 wird für Gewichte nicht unterstützt</translation>
    </message>
    <message>
        <source>%1 has shape %2: K = %3 is not a multiple of %4 groups, so the group size cannot be inferred; config.json&apos;s quantization_config is needed</source>
        <translation>%1 hat die Form %2: K = %3 ist kein Vielfaches von %4 Gruppen, daher lässt sich die Gruppengröße nicht erschließen; die quantization_config von config.json wird gebraucht</translation>
    </message>
    <message>
        <source>%1 has shape %2, which is not [N, groups] for N = %3; a block grid needs its block size from config.json (never derived from shapes)</source>
        <translation>%1 hat die Form %2, die für N = %3 nicht [N, groups] ist; ein Blockraster braucht seine Blockgröße aus config.json (nie aus Formen abgeleitet)</translation>
    </message>
    <message>
        <source>%1 has shape %2, which fits no per-tensor, per-channel or group layout of a [%3, %4] weight</source>
        <translation>%1 hat die Form %2, die zu keinem Layout pro Tensor, pro Kanal oder pro Gruppe eines [%3, %4]-Gewichts passt</translation>
    </message>
    <message>
        <source>weight_shape is %1 %2; an integer vector [rank] is expected</source>
        <translation>weight_shape hat den Typ %1 %2; erwartet wird ein Ganzzahlvektor [rank]</translation>
    </message>
    <message>
        <source>weight_shape %1 has a negative entry</source>
        <translation>weight_shape %1 hat einen negativen Eintrag</translation>
    </message>
    <message>
        <source>%1: %2 INT%3 codes in %4 words fit both the dense layout and the older 32/b-per-word layout, which differ here; the layout is ambiguous and refused</source>
        <translation>%1: %2 INT%3-Codes in %4 Wörtern passen sowohl zum dichten Layout als auch zum älteren Layout mit 32/b pro Wort, die sich hier unterscheiden; das Layout ist mehrdeutig und wird abgelehnt</translation>
    </message>
    <message>
        <source>weight_packed is %1; [N, words] or [E, N, words] expected</source>
        <translation>weight_packed hat die Form %1; erwartet: [N, words] oder [E, N, words]</translation>
    </message>
    <message>
        <source>weight_packed without weight_scale: the scales are missing</source>
        <translation>weight_packed ohne weight_scale: die Skalen fehlen</translation>
    </message>
    <message>
        <source>weight_packed without weight_shape: K cannot be known exactly from the word count</source>
        <translation>weight_packed ohne weight_shape: K lässt sich aus der Wortanzahl nicht genau bestimmen</translation>
    </message>
    <message>
        <source>weight_packed I32 holds INT codes, but %1 says type float</source>
        <translation>weight_packed I32 enthält INT-Codes, aber %1 nennt den Typ float</translation>
    </message>
    <message>
        <source>the tensors are pack-quantized, but %1 says format &apos;%2&apos;: read as pack-quantized (compressed-tensors decides per module)</source>
        <translation>die Tensoren sind pack-quantized, aber %1 nennt das Format „%2“: als pack-quantized gelesen (compressed-tensors entscheidet pro Modul)</translation>
    </message>
    <message>
        <source>weight_shape %1 has rank %2, weight_packed %3 rank %4</source>
        <translation>weight_shape %1 hat Rang %2, aber weight_packed %3 hat Rang %4</translation>
    </message>
    <message>
        <source>weight_shape %1 lies: K = %2 codes cannot fit in the %3 I32 words of each row of weight_packed %4</source>
        <translation>weight_shape %1 stimmt nicht: K = %2 Codes passen nicht in die %3 I32-Wörter jeder Zeile von weight_packed %4</translation>
    </message>
    <message>
        <source>weight_shape %1 lies: weight_packed holds %2 experts</source>
        <translation>weight_shape %1 stimmt nicht: weight_packed enthält %2 Experten</translation>
    </message>
    <message>
        <source>weight_shape %1 lies: weight_packed %2 holds %3 rows</source>
        <translation>weight_shape %1 stimmt nicht: weight_packed %2 enthält %3 Zeilen</translation>
    </message>
    <message>
        <source>%1 says num_bits %2; pack-quantized holds 1..8</source>
        <translation>%1 nennt num_bits %2; pack-quantized fasst 1..8</translation>
    </message>
    <message>
        <source>weight_shape %1 and %2 words per row fit no bit width 1..8; config.json&apos;s quantization_config is needed to know num_bits</source>
        <translation>weight_shape %1 und %2 Wörter pro Zeile passen zu keiner Bitbreite 1..8; die quantization_config von config.json wird gebraucht, um num_bits zu kennen</translation>
    </message>
    <message>
        <source>weight_shape %1 and %2 words per row fit bit widths {%3}; config.json&apos;s quantization_config is needed to know num_bits</source>
        <translation>weight_shape %1 und %2 Wörter pro Zeile passen zu den Bitbreiten {%3}; die quantization_config von config.json wird gebraucht, um num_bits zu kennen</translation>
    </message>
    <message>
        <source>weight_shape %1 lies or the pack layout is unknown: K = %2 INT%3 codes need %4 words (dense) or %5 (32/b per word), weight_packed has %6</source>
        <translation>weight_shape %1 stimmt nicht oder das Packlayout ist unbekannt: K = %2 INT%3-Codes brauchen %4 Wörter (dicht) oder %5 (32/b pro Wort), weight_packed hat %6</translation>
    </message>
    <message>
        <source>weight_scale %1 does not start with the %2 experts of weight_packed</source>
        <translation>weight_scale %1 beginnt nicht mit den %2 Experten von weight_packed</translation>
    </message>
    <message>
        <source>weight_zero_point present although %1 says symmetric; it is ignored (as compressed-tensors does)</source>
        <translation>weight_zero_point vorhanden, obwohl %1 symmetrisch angibt; er wird ignoriert (wie bei compressed-tensors)</translation>
    </message>
    <message>
        <source>weight_zero_point has dtype %1; integer zero points are expected</source>
        <translation>weight_zero_point hat den dtype %1; erwartet werden ganzzahlige Nullpunkte</translation>
    </message>
    <message>
        <source>weight_zero_point %1 does not start with the experts</source>
        <translation>weight_zero_point %1 beginnt nicht mit den Experten</translation>
    </message>
    <message>
        <source>weight_zero_point %1 does not match the scale grid [%2, %3] packed along dim 0</source>
        <translation>weight_zero_point %1 passt nicht zum entlang Dimension 0 gepackten Skalenraster [%2, %3]</translation>
    </message>
    <message>
        <source>weight_zero_point %1: %2 packed INT%3 zero points need %4 I32 rows in the weight&apos;s layout (or %5 raw ones)</source>
        <translation>weight_zero_point %1: %2 gepackte INT%3-Nullpunkte brauchen %4 I32-Zeilen im Layout des Gewichts (oder %5 ungepackte)</translation>
    </message>
    <message>
        <source>weight_g_idx is %1; I32 [K = %2] expected</source>
        <translation>weight_g_idx lautet %1; erwartet: I32 [K = %2]</translation>
    </message>
    <message>
        <source>weight_g_idx given for a %1 scheme; activation order needs groups</source>
        <translation>weight_g_idx für ein %1-Schema angegeben; die Aktivierungsreihenfolge braucht Gruppen</translation>
    </message>
    <message>
        <source>weight_g_idx[%1] = %2 is outside the %3 groups</source>
        <translation>weight_g_idx[%1] = %2 liegt außerhalb der %3 Gruppen</translation>
    </message>
    <message>
        <source>K = %1 (config.json &apos;%2&apos;) is padded to %3 in the packed words (Quark pads to a multiple of 8); the padding is dropped</source>
        <translation>K = %1 (config.json „%2“) ist in den gepackten Wörtern auf %3 aufgefüllt (Quark füllt auf ein Vielfaches von 8 auf); die Auffüllung wird verworfen</translation>
    </message>
    <message>
        <source>the packed rows hold %1 codes and config.json names no dimension between %2 and %3: read as K = %4; any padding Quark added is included</source>
        <translation>die gepackten Zeilen enthalten %1 Codes, und config.json nennt keine Dimension zwischen %2 und %3: gelesen als K = %4; eine Auffüllung durch Quark ist eingeschlossen</translation>
    </message>
    <message>
        <source>the packed rows hold %1 codes and config.json names several dimensions between %2 and %3: read as K = %4; any padding Quark added is included</source>
        <translation>die gepackten Zeilen enthalten %1 Codes, und config.json nennt mehrere Dimensionen zwischen %2 und %3: gelesen als K = %4; eine Auffüllung durch Quark ist eingeschlossen</translation>
    </message>
    <message>
        <source>two-stage Quark weight without weight_scale (the stage-1 FP8 scale s1)</source>
        <translation>zweistufiges Quark-Gewicht ohne weight_scale (die FP8-Skala s1 der Stufe 1)</translation>
    </message>
    <message>
        <source>packed INT4 weight without %1: the scales are missing</source>
        <translation>gepacktes INT4-Gewicht ohne %1: die Skalen fehlen</translation>
    </message>
    <message>
        <source>weight_scale (stage-1 s1) is %1; the FP8 per-tensor stage has one scale ([1] or a scalar)</source>
        <translation>weight_scale (s1 der Stufe 1) ist %1; die FP8-Stufe pro Tensor hat eine Skala ([1] oder ein Skalar)</translation>
    </message>
    <message>
        <source>stage 1 qscheme &apos;%1&apos; in %2 is not supported (per_tensor FP8 is read)</source>
        <translation>qscheme „%1“ der Stufe 1 in %2 wird nicht unterstützt (gelesen wird per_tensor FP8)</translation>
    </message>
    <message>
        <source>weight I32 is %1; packed INT4 [rows, words] expected</source>
        <translation>das I32-Gewicht ist %1; erwartet: gepacktes INT4 [rows, words]</translation>
    </message>
    <message>
        <source>weight I32 with Quark dtype &apos;%1&apos; (%2); int4 and uint4 packed in int32 are read</source>
        <translation>I32-Gewicht mit dem Quark-dtype „%1“ (%2); gelesen werden int4 und uint4, gepackt in int32</translation>
    </message>
    <message>
        <source>unknown pack layout: export.pack_method &apos;%1&apos; (Quark writes &apos;reorder&apos; or &apos;order&apos;)</source>
        <translation>unbekanntes Packlayout: export.pack_method „%1“ (Quark schreibt &apos;reorder&apos; oder &apos;order&apos;)</translation>
    </message>
    <message>
        <source>%1 has dtype %2; a float dtype is expected</source>
        <translation>%1 hat den dtype %2; erwartet wird ein Gleitkomma-dtype</translation>
    </message>
    <message>
        <source>%1 %2: a Quark per-group scale is stored transposed, [groups, N]</source>
        <translation>%1 %2: eine Quark-Skala pro Gruppe wird transponiert gespeichert, [groups, N]</translation>
    </message>
    <message>
        <source>weight %1 holds %2 outputs per row after the per-group transpose, %3 %4 has %5</source>
        <translation>das Gewicht %1 enthält nach der Transposition pro Gruppe %2 Ausgaben pro Zeile, %3 %4 hat %5</translation>
    </message>
    <message>
        <source>N = %1 is padded to %2 in the packed words (Quark pads to a multiple of 8); the padding is dropped</source>
        <translation>N = %1 ist in den gepackten Wörtern auf %2 aufgefüllt (Quark füllt auf ein Vielfaches von 8 auf); die Auffüllung wird verworfen</translation>
    </message>
    <message>
        <source>%1 %2: K = %3 is not a multiple of the groups; the group size needs the config</source>
        <translation>%1 %2: K = %3 ist kein Vielfaches der Gruppen; die Gruppengröße braucht die Konfiguration</translation>
    </message>
    <message>
        <source>%1 %2, but group %3 along K = %4 (%5) needs [%6, %7] (transposed)</source>
        <translation>%1 %2, aber Gruppe %3 entlang K = %4 (%5) braucht [%6, %7] (transponiert)</translation>
    </message>
    <message>
        <source>%1 has shape %2, but per-channel quantization of a weight with N = %3 rows needs [%4]; broadcasting it would not give one scale per row</source>
        <translation>%1 hat die Form %2, aber Quantisierung pro Kanal eines Gewichts mit N = %3 Zeilen braucht [%4]; Broadcasting ergäbe nicht eine Skala pro Zeile</translation>
    </message>
    <message>
        <source>%1 has shape %2, but per-tensor quantization needs one scale</source>
        <translation>%1 hat die Form %2, aber Quantisierung pro Tensor braucht eine Skala</translation>
    </message>
    <message>
        <source>Quark qscheme &apos;%1&apos; is not supported for packed INT4 weights</source>
        <translation>Quark-qscheme „%1“ wird für gepackte INT4-Gewichte nicht unterstützt</translation>
    </message>
    <message>
        <source>%1 has dtype %2; integer zero points are expected</source>
        <translation>%1 hat den dtype %2; erwartet werden ganzzahlige Nullpunkte</translation>
    </message>
    <message>
        <source>%1 %2 fits neither the packed zero points (%3 words) nor one per scale (%4)</source>
        <translation>%1 %2 passt weder zu den gepackten Nullpunkten (%3 Wörter) noch zu einem pro Skala (%4)</translation>
    </message>
    <message>
        <source>asymmetric quantization (%1) but the zero point is missing</source>
        <translation>asymmetrische Quantisierung (%1), aber der Nullpunkt fehlt</translation>
    </message>
    <message>
        <source>%1 sym</source>
        <translation>%1 symmetrisch</translation>
    </message>
    <message>
        <source>%1 asym</source>
        <translation>%1 asymmetrisch</translation>
    </message>
    <message>
        <source>per tensor</source>
        <translation>pro Tensor</translation>
    </message>
    <message>
        <source>per channel</source>
        <translation>pro Kanal</translation>
    </message>
    <message>
        <source>group %1 along K</source>
        <translation>Gruppe %1 entlang K</translation>
    </message>
    <message>
        <source>block %1x%2</source>
        <translation>Block %1×%2</translation>
    </message>
    <message>
        <source>c-t packing</source>
        <translation>c-t-Packung</translation>
    </message>
    <message>
        <source>c-t legacy packing (32/b per word)</source>
        <translation>alte c-t-Packung (32/b pro Wort)</translation>
    </message>
    <message>
        <source>Quark reorder packing</source>
        <translation>Quark-Packung reorder</translation>
    </message>
    <message>
        <source>Quark order packing</source>
        <translation>Quark-Packung order</translation>
    </message>
    <message>
        <source>FP4 pairs low nibble first</source>
        <translation>FP4-Paare mit dem unteren Nibble zuerst</translation>
    </message>
    <message>
        <source>nibble pairs low first</source>
        <translation>Nibble-Paare mit dem unteren zuerst</translation>
    </message>
    <message>
        <source>%1 (assumed: no pack_method in config)</source>
        <translation>%1 (angenommen: kein pack_method in der Konfiguration)</translation>
    </message>
    <message>
        <source>transposed [K, N/8]</source>
        <translation>transponiert [K, N/8]</translation>
    </message>
    <message>
        <source>act-order g_idx</source>
        <translation>Aktivierungsreihenfolge g_idx</translation>
    </message>
    <message>
        <source>%1 scales</source>
        <translation>%1-Skalen</translation>
    </message>
    <message>
        <source>%1 inverse scales</source>
        <translation>inverse %1-Skalen</translation>
    </message>
    <message>
        <source>%1 scales / F32 global scale</source>
        <translation>%1-Skalen / globale F32-Skala</translation>
    </message>
    <message>
        <source>%1 inverse scales / F32 global scale</source>
        <translation>inverse %1-Skalen / globale F32-Skala</translation>
    </message>
    <message>
        <source>two-stage s1·(s2·(q−z2)) with FP8 per-tensor s1</source>
        <translation>zweistufig s1·(s2·(q−z2)) mit FP8-s1 pro Tensor</translation>
    </message>
    <message>
        <source>weight_packed has dtype %1; I32 (packed INT) or U8 (FP4 pairs) expected</source>
        <translation>weight_packed hat den dtype %1; erwartet: I32 (gepacktes INT) oder U8 (FP4-Paare)</translation>
    </message>
    <message>
        <source>the config excludes/ignores this module, but its tensors are quantized; read as stored</source>
        <translation>die Konfiguration schließt dieses Modul aus bzw. ignoriert es, aber seine Tensoren sind quantisiert; so gelesen, wie gespeichert</translation>
    </message>
</context>
<context>
    <name>quantscope::DistributionView</name>
    <message>
        <source>The tensor shown (every tensor of the last run)</source>
        <translation>Der angezeigte Tensor (jeder Tensor des letzten Laufs)</translation>
    </message>
    <message>
        <source>The configuration whose overlap with W is shaded</source>
        <translation>Die Konfiguration, deren Überlappung mit W schattiert ist</translation>
    </message>
    <message>
        <source>Input channels</source>
        <translation>Eingangskanäle</translation>
    </message>
    <message>
        <source>Output channels</source>
        <translation>Ausgangskanäle</translation>
    </message>
    <message>
        <source>Channel maxima per column (input channel, what activation outliers hit) or per row (output channel, what per-channel scales see)</source>
        <translation>Kanal-Maxima je Spalte (Eingangskanal, dort treffen Aktivierungs-Ausreißer) oder je Zeile (Ausgangskanal, das sehen kanalweise Skalen)</translation>
    </message>
    <message>
        <source>&amp;Log counts</source>
        <translation>&amp;Logarithmische Häufigkeiten</translation>
    </message>
    <message>
        <source>Logarithmic count axis: the tails, where the error lives, stay visible</source>
        <translation>Logarithmische Häufigkeitsachse: die Ränder, wo der Fehler entsteht, bleiben sichtbar</translation>
    </message>
    <message>
        <source>Tensor:</source>
        <translation>Gewicht:</translation>
    </message>
    <message>
        <source>Shade:</source>
        <translation>Schattieren:</translation>
    </message>
    <message>
        <source>max |w|</source>
        <translation>max. |w|</translation>
    </message>
    <message>
        <source>How many times larger than the median channel&apos;s maximum</source>
        <translation>Wie viel mal größer als das Maximum des Median-Kanals</translation>
    </message>
    <message>
        <source>The paired activation&apos;s maximum in the same input channel</source>
        <translation>Das Maximum der gekoppelten Aktivierung im selben Eingangskanal</translation>
    </message>
    <message>
        <source>The channels with the largest maxima: they set the scale of every group they are in</source>
        <translation>Die Kanäle mit den größten Maxima: sie bestimmen die Skala jeder Gruppe, in der sie liegen</translation>
    </message>
    <message>
        <source>No tensor in the results.</source>
        <translation>Kein Tensor in den Ergebnissen.</translation>
    </message>
    <message>
        <source>Select tensors in the browser and press Run to see how each configuration changes their values.</source>
        <translation>Tensoren im Browser auswählen und „Ausführen“ drücken, um zu sehen, wie jede Konfiguration ihre Werte verändert.</translation>
    </message>
    <message>
        <source>%1 failed: %2</source>
        <translation>%1 fehlgeschlagen: %2</translation>
    </message>
    <message>
        <source>%1: overlap %2, rel. error %3, %4 bits/element</source>
        <translation>%1: Überlappung %2, rel. Fehler %3, %4 Bit/Element</translation>
    </message>
    <message numerus="yes">
        <source> (%n value(s) of Ŵ outside W&apos;s range)</source>
        <translation>
            <numerusform> (%n Wert von Ŵ außerhalb des Bereichs von W)</numerusform>
            <numerusform> (%n Werte von Ŵ außerhalb des Bereichs von W)</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 · %2 · %3</source>
        <translation>%1 · %2 · %3</translation>
    </message>
    <message>
        <source>Could not read this tensor: %1</source>
        <translation>Dieser Tensor konnte nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>%1×</source>
        <translation>%1×</translation>
    </message>
    <message>
        <source>Ch.</source>
        <translation>Kanal</translation>
    </message>
    <message>
        <source>× med.</source>
        <translation>× Med.</translation>
    </message>
    <message>
        <source>act. |x|</source>
        <translation>Akt. |x|</translation>
    </message>
    <message>
        <source>Channel index</source>
        <translation>Kanalindex</translation>
    </message>
    <message>
        <source>%1 — stale: its configuration was edited after the run; run again to update</source>
        <translation>%1 — veraltet: die Konfiguration wurde nach dem Lauf geändert; zum Aktualisieren erneut ausführen</translation>
    </message>
    <message>
        <source>W before any run: mean %1, std %2, min %3, max %4, |max| %5, excess kurtosis %6</source>
        <translation>W vor jedem Lauf: Mittelwert %1, Std.-Abw. %2, Minimum %3, Maximum %4, |Maximum| %5, Exzess-Kurtosis %6</translation>
    </message>
    <message>
        <source>%1 NaN and %2 infinite values</source>
        <translation>%1 NaN- und %2 unendliche Werte</translation>
    </message>
    <message>
        <source>Press Run to see how each configuration changes these values.</source>
        <translation>„Ausführen“ drücken, um zu sehen, wie jede Konfiguration diese Werte verändert.</translation>
    </message>
</context>
<context>
    <name>quantscope::ErrorHistogramPlot</name>
    <message>
        <source>error W − Ŵ</source>
        <translation>Fehler W − Ŵ</translation>
    </message>
    <message>
        <source>count</source>
        <translation>Anzahl</translation>
    </message>
    <message>
        <source>error %1</source>
        <translation>Fehler %1</translation>
    </message>
    <message>
        <source>error ≈ %1</source>
        <translation>Fehler ≈ %1</translation>
    </message>
    <message>
        <source>%1: %2 in [%3, %4)</source>
        <translation>%1: %2 in [%3, %4)</translation>
    </message>
    <message>
        <source>%1: outside its range</source>
        <translation>%1: außerhalb seines Bereichs</translation>
    </message>
</context>
<context>
    <name>quantscope::ExporterPanel</name>
    <message>
        <source>Open recipe…</source>
        <translation>Rezept öffnen…</translation>
    </message>
    <message>
        <source>Save…</source>
        <translation>Speichern…</translation>
    </message>
    <message>
        <source>Format:</source>
        <translation>Zielformat:</translation>
    </message>
    <message>
        <source>Activations:</source>
        <translation>Aktivierungen:</translation>
    </message>
    <message>
        <source>Export checkpoint…</source>
        <translation>Checkpoint exportieren…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Checkpoint:</source>
        <translation>Checkpoint-Datei:</translation>
    </message>
    <message>
        <source>Wrote %1 (%2 modules quantized)</source>
        <translation>%1 geschrieben (%2 Module quantisiert)</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>Abgebrochen</translation>
    </message>
    <message>
        <source>Export to %1</source>
        <translation>Export nach %1</translation>
    </message>
</context>
<context>
    <name>quantscope::GemmTimingPlot</name>
    <message>
        <source>batch size M (tokens)</source>
        <translation>Batchgröße M (Tokens)</translation>
    </message>
    <message>
        <source>time (µs)</source>
        <translation>Zeit (µs)</translation>
    </message>
    <message>
        <source>TFLOP/s</source>
        <translation>TFLOP/s</translation>
    </message>
    <message>
        <source>%1, M %2: %3 µs, %4 TFLOP/s</source>
        <translation>%1, M %2: %3 µs, %4 TFLOP/s</translation>
    </message>
    <message>
        <source>ran padded to M = %1</source>
        <translation>lief aufgefüllt auf M = %1</translation>
    </message>
</context>
<context>
    <name>quantscope::GemmTimingView</name>
    <message>
        <source>The weight whose N×K is timed (one of the selected tensors)</source>
        <translation>Das Gewicht, dessen N×K gemessen wird (einer der ausgewählten Tensoren)</translation>
    </message>
    <message>
        <source>M up to %1</source>
        <translation>M bis %1</translation>
    </message>
    <message>
        <source>Time GEMMs</source>
        <translation>GEMMs messen</translation>
    </message>
    <message>
        <source>W3 rank </source>
        <translation>W3-Rang </translation>
    </message>
    <message>
        <source>Rank r of the MiLo compensator timed with the W3A16 GEMM (0: the W3 GEMM alone)</source>
        <translation>Rang r des MiLo-Kompensators, der mit dem W3A16-GEMM gemessen wird (0: nur das W3-GEMM)</translation>
    </message>
    <message>
        <source>%1 not timed: %2</source>
        <translation>%1 nicht gemessen: %2</translation>
    </message>
    <message>
        <source>Select a tensor and press Time GEMMs.</source>
        <translation>Wählen Sie einen Tensor und drücken Sie „GEMMs messen“.</translation>
    </message>
    <message>
        <source>Select a tensor in the Tensors dock.</source>
        <translation>Wählen Sie einen Tensor im Tensoren-Dock.</translation>
    </message>
    <message>
        <source>Timing GEMMs of %1</source>
        <translation>Messe GEMMs von %1</translation>
    </message>
    <message>
        <source>%1: Y[M,N] = X[M,K]·W[N,K]ᵀ with N = %2, K = %3 on %4</source>
        <translation>%1: Y[M,N] = X[M,K]·W[N,K]ᵀ mit N = %2, K = %3 auf %4</translation>
    </message>
    <message>
        <source>shape</source>
        <translation>Form</translation>
    </message>
    <message>
        <source>The CPU has no BF16, FP8 or INT8 GEMM here: it times FP32 GEMMs of the same shape.</source>
        <translation>Die CPU hat hier keinen BF16-, FP8- oder INT8-GEMM: Sie misst FP32-GEMMs derselben Form.</translation>
    </message>
    <message>
        <source>Plain GEMMs</source>
        <translation>Einfache GEMMs</translation>
    </message>
    <message>
        <source>Quantized-weight paths</source>
        <translation>Pfade mit quantisierten Gewichten</translation>
    </message>
    <message>
        <source>MoE: %1 experts</source>
        <translation>MoE: %1 Experten</translation>
    </message>
    <message>
        <source>Roofline (%1): copy %2 GB/s, %3</source>
        <translation>Roofline (%1): Kopie %2 GB/s, %3</translation>
    </message>
    <message>
        <source>The quantized-weight paths run on a GPU only.</source>
        <translation>Die Pfade mit quantisierten Gewichten laufen nur auf einer GPU.</translation>
    </message>
    <message>
        <source>Some points were faster than the measured ceiling (their operands stay in cache): the ceiling was raised to them, so none is drawn above it.</source>
        <translation>Einige Punkte waren schneller als die gemessene Obergrenze (ihre Operanden bleiben im Cache): die Obergrenze wurde auf sie angehoben, sodass keiner darüber gezeichnet wird.</translation>
    </message>
</context>
<context>
    <name>quantscope::HealthController</name>
    <message>
        <source>&amp;Health</source>
        <translation>&amp;Zustand</translation>
    </message>
    <message>
        <source>Checkpoint health: every problem of the opened checkpoint in one report</source>
        <translation>Checkpoint-Zustand: alle Probleme des geöffneten Checkpoints in einem Bericht</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>Abgebrochen</translation>
    </message>
    <message>
        <source>The check failed: %1</source>
        <translation>Die Prüfung ist fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Health check of %1</source>
        <translation>Zustandsprüfung von %1</translation>
    </message>
</context>
<context>
    <name>quantscope::HealthView</name>
    <message>
        <source>Check checkpoint</source>
        <translation>Checkpoint prüfen</translation>
    </message>
    <message>
        <source>Run the doctor: completeness, quantized modules, scale health, dtype traps, KV scales, duplicates</source>
        <translation>Den Doktor ausführen: Vollständigkeit, quantisierte Module, Skalenzustand, Datentyp-Fallen, KV-Skalen, Duplikate</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Severity</source>
        <translation>Schweregrad</translation>
    </message>
    <message>
        <source>Check</source>
        <translation>Prüfung</translation>
    </message>
    <message>
        <source>Module / tensor</source>
        <translation>Modul / Tensor</translation>
    </message>
    <message>
        <source>File @ byte</source>
        <translation>Datei @ Byte</translation>
    </message>
    <message>
        <source>Explanation</source>
        <translation>Erklärung</translation>
    </message>
    <message>
        <source>info</source>
        <translation>Hinweis</translation>
    </message>
    <message>
        <source>warning</source>
        <translation>Warnung</translation>
    </message>
    <message>
        <source>error</source>
        <translation>Fehler</translation>
    </message>
    <message>
        <source>Healthy: %1 files, %2 tensors, nothing to report</source>
        <translation>Gesund: %1 Dateien, %2 Tensoren, nichts zu melden</translation>
    </message>
    <message>
        <source>%1 files, %2 tensors: %3 errors, %4 warnings, %5 notes</source>
        <translation>%1 Dateien, %2 Tensoren: %3 Fehler, %4 Warnungen, %5 Hinweise</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>Prüfe …</translation>
    </message>
    <message>
        <source>No checkpoint open: open one (File ▸ Open…), then press Check checkpoint.</source>
        <translation>Kein Checkpoint geöffnet: einen öffnen (Datei ▸ Öffnen…), dann „Checkpoint prüfen“ drücken.</translation>
    </message>
    <message>
        <source>%1 is not checked yet: press Check checkpoint for every problem of its files in one report.</source>
        <translation>%1 ist noch nicht geprüft: „Checkpoint prüfen“ drücken, um alle Probleme seiner Dateien in einem Bericht zu sehen.</translation>
    </message>
</context>
<context>
    <name>quantscope::HistogramPlot</name>
    <message>
        <source>value</source>
        <translation>Wert</translation>
    </message>
    <message>
        <source>count</source>
        <translation>Anzahl</translation>
    </message>
    <message>
        <source>overlap W ∩ Ŵ %1</source>
        <translation>Überlappung W ∩ Ŵ %1</translation>
    </message>
    <message>
        <source>W (original)</source>
        <translation>W (Original)</translation>
    </message>
    <message>
        <source>Ŵ %1</source>
        <translation>Ŵ %1</translation>
    </message>
    <message>
        <source>value (symlog bins)</source>
        <translation>Wert (symlog-Klassen)</translation>
    </message>
    <message>
        <source>bin %1: [%2, %3)</source>
        <translation>Klasse %1: [%2, %3)</translation>
    </message>
    <message>
        <source>W: %1</source>
        <translation>W: %1</translation>
    </message>
    <message>
        <source>Ŵ %1: %2</source>
        <translation>Ŵ %1: %2</translation>
    </message>
    <message>
        <source>shared with %1: %2</source>
        <translation>gemeinsam mit %1: %2</translation>
    </message>
</context>
<context>
    <name>quantscope::JobBoard</name>
    <message>
        <source>running</source>
        <translation>läuft</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>abgeschlossen</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>fehlgeschlagen</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>abgebrochen</translation>
    </message>
    <message>
        <source>replaced by a newer run</source>
        <translation>durch einen neueren Lauf ersetzt</translation>
    </message>
    <message>
        <source>%1: finished in %2 s</source>
        <translation>%1: abgeschlossen in %2 s</translation>
    </message>
    <message>
        <source>%1: failed after %2 s: %3</source>
        <translation>%1: nach %2 s fehlgeschlagen: %3</translation>
    </message>
    <message>
        <source>%1: cancelled after %2 s</source>
        <translation>%1: nach %2 s abgebrochen</translation>
    </message>
    <message>
        <source>%1: replaced by a newer run after %2 s</source>
        <translation>%1: nach %2 s durch einen neueren Lauf ersetzt</translation>
    </message>
    <message>
        <source>finished in %1 s</source>
        <translation>abgeschlossen in %1 s</translation>
    </message>
    <message>
        <source>failed after %1 s</source>
        <translation>nach %1 s fehlgeschlagen</translation>
    </message>
    <message>
        <source>cancelled after %1 s</source>
        <translation>nach %1 s abgebrochen</translation>
    </message>
    <message>
        <source>replaced by a newer run after %1 s</source>
        <translation>nach %1 s durch einen neueren Lauf ersetzt</translation>
    </message>
</context>
<context>
    <name>quantscope::JobController</name>
    <message>
        <source>Open a checkpoint first</source>
        <translation>Zuerst einen Checkpoint öffnen</translation>
    </message>
    <message>
        <source>Select one or more tensors to quantize</source>
        <translation>Einen oder mehrere Tensoren zum Quantisieren auswählen</translation>
    </message>
    <message>
        <source>Select one or more tensors in the Tensors dock, then Run.</source>
        <translation>Im Tensoren-Fenster einen oder mehrere Tensoren auswählen, dann „Ausführen“.</translation>
    </message>
    <message>
        <source>%1 on %2 failed: %3</source>
        <translation>%1 auf %2 fehlgeschlagen: %3</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>The quantization job failed: %1</source>
        <translation>Der Quantisierungsauftrag ist fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Quantization Failed</source>
        <translation>Quantisierung fehlgeschlagen</translation>
    </message>
    <message>
        <source>The quantization job failed.</source>
        <translation>Der Quantisierungsauftrag ist fehlgeschlagen.</translation>
    </message>
    <message numerus="yes">
        <source>Cancelled; %n finished run(s) are shown as a partial batch.</source>
        <translation>
            <numerusform>Abgebrochen; %n fertiger Lauf wird als Teilstapel gezeigt.</numerusform>
            <numerusform>Abgebrochen; %n fertige Läufe werden als Teilstapel gezeigt.</numerusform>
        </translation>
    </message>
    <message>
        <source>Cancelled before any run finished.</source>
        <translation>Abgebrochen, bevor ein Lauf fertig war.</translation>
    </message>
    <message numerus="yes">
        <source>Skipped %n 1-D tensor(s) (norms, biases); select only them to quantize them.</source>
        <translation>
            <numerusform>%n 1-D-Tensor (Normen, Biases) übersprungen; wählen Sie nur diese aus, um sie zu quantisieren.</numerusform>
            <numerusform>%n 1-D-Tensoren (Normen, Biases) übersprungen; wählen Sie nur diese aus, um sie zu quantisieren.</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 on tensor %2: %3</source>
        <translation>%1 auf Tensor %2: %3</translation>
    </message>
    <message numerus="yes">
        <source>%n more run(s) like it: marked ⚠ in the Overview</source>
        <translation>
            <numerusform>%n weiterer solcher Lauf: in der Übersicht mit ⚠ markiert</numerusform>
            <numerusform>%n weitere solche Läufe: in der Übersicht mit ⚠ markiert</numerusform>
        </translation>
    </message>
    <message>
        <source>Quantizing %1 × %2</source>
        <translation>Quantisiere %1 × %2</translation>
    </message>
    <message numerus="yes">
        <source>%n tensor(s)</source>
        <translation>
            <numerusform>%n Tensor</numerusform>
            <numerusform>%n Tensoren</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n configuration(s)</source>
        <translation>
            <numerusform>%n Konfiguration</numerusform>
            <numerusform>%n Konfigurationen</numerusform>
        </translation>
    </message>
    <message>
        <source>Finished %1 in %2 ms</source>
        <translation>%1 in %2 ms abgeschlossen</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s)</source>
        <translation>
            <numerusform>%n Lauf</numerusform>
            <numerusform>%n Läufe</numerusform>
        </translation>
    </message>
    <message>
        <source>Finished %1 in %2 s</source>
        <translation>%1 in %2 s abgeschlossen</translation>
    </message>
    <message>
        <source>%1; %2</source>
        <translation>%1; %2</translation>
    </message>
    <message numerus="yes">
        <source>%n failed (see the log)</source>
        <translation>
            <numerusform>%n fehlgeschlagen (siehe Protokoll)</numerusform>
            <numerusform>%n fehlgeschlagen (siehe Protokoll)</numerusform>
        </translation>
    </message>
    <message>
        <source>Nothing to run: every configuration has its results for the selected tensors.</source>
        <translation>Nichts auszuführen: jede Konfiguration hat ihre Ergebnisse für die ausgewählten Tensoren.</translation>
    </message>
</context>
<context>
    <name>quantscope::JobProgressWidget</name>
    <message>
        <source>No job running.</source>
        <translation>Kein Auftrag läuft.</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>estimating…</source>
        <translation>wird geschätzt…</translation>
    </message>
    <message>
        <source>less than a second left</source>
        <translation>weniger als eine Sekunde übrig</translation>
    </message>
    <message numerus="yes">
        <source>about %n s left</source>
        <translation>
            <numerusform>noch etwa %n s</numerusform>
            <numerusform>noch etwa %n s</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>about %n min left</source>
        <translation>
            <numerusform>noch etwa %n min</numerusform>
            <numerusform>noch etwa %n min</numerusform>
        </translation>
    </message>
    <message>
        <source>Stop the running job (Esc); the runs that finished stay shown</source>
        <translation>Den laufenden Auftrag anhalten (Esc); die fertigen Läufe bleiben sichtbar</translation>
    </message>
</context>
<context>
    <name>quantscope::JobsView</name>
    <message>
        <source>Job</source>
        <translation>Auftrag</translation>
    </message>
    <message>
        <source>Progress</source>
        <translation>Fortschritt</translation>
    </message>
    <message>
        <source>State</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>No background job has run yet. Quantizing, scanning, sweeping, exporting, comparing, timing, capturing and evaluating are listed here while they run, each with Cancel, and stay listed with how they ended.</source>
        <translation>Noch kein Hintergrundauftrag ist gelaufen. Quantisieren, Scannen, Durchläufe, Exportieren, Vergleichen, Zeitmessen, Aufzeichnen und Auswerten stehen hier, solange sie laufen, jeweils mit „Abbrechen“, und bleiben mit ihrem Ausgang aufgelistet.</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
</context>
<context>
    <name>quantscope::KurtosisChannelPlot</name>
    <message>
        <source>excess kurtosis</source>
        <translation>Exzess-Kurtosis</translation>
    </message>
    <message>
        <source>input channel (column)</source>
        <translation>Eingangskanal (Spalte)</translation>
    </message>
    <message>
        <source>output channel (row)</source>
        <translation>Ausgangskanal (Zeile)</translation>
    </message>
    <message>
        <source>channel excess kurtosis, rotated</source>
        <translation>Exzess-Kurtosis je Kanal, rotiert</translation>
    </message>
    <message>
        <source>channel excess kurtosis</source>
        <translation>Exzess-Kurtosis je Kanal</translation>
    </message>
    <message>
        <source>most kurtotic channels</source>
        <translation>Kanäle mit der höchsten Kurtosis</translation>
    </message>
    <message>
        <source>channel %1: excess kurtosis %2</source>
        <translation>Kanal %1: Exzess-Kurtosis %2</translation>
    </message>
</context>
<context>
    <name>quantscope::KurtosisScatterPlot</name>
    <message>
        <source>relative error ‖W − Ŵ‖ / ‖W‖</source>
        <translation>relativer Fehler ‖W − Ŵ‖ / ‖W‖</translation>
    </message>
    <message>
        <source>excess kurtosis of W, rotated</source>
        <translation>Exzess-Kurtosis von W, rotiert</translation>
    </message>
    <message>
        <source>excess kurtosis of W</source>
        <translation>Exzess-Kurtosis von W</translation>
    </message>
    <message>
        <source>%1
%2: relative error %3, excess kurtosis %4 (rotated %5)</source>
        <translation>%1
%2: relativer Fehler %3, Exzess-Kurtosis %4 (rotiert %5)</translation>
    </message>
</context>
<context>
    <name>quantscope::KurtosisView</name>
    <message>
        <source>The tensor whose channels are drawn</source>
        <translation>Der Tensor, dessen Kanäle gezeigt werden</translation>
    </message>
    <message>
        <source>Input channels</source>
        <translation>Eingangskanäle</translation>
    </message>
    <message>
        <source>Output channels</source>
        <translation>Ausgangskanäle</translation>
    </message>
    <message>
        <source>Hadamard rotation, block</source>
        <translation>Hadamard-Rotation, Block</translation>
    </message>
    <message>
        <source>Show the kurtosis after rotating W along K (both are computed)</source>
        <translation>Kurtosis nach Rotation von W entlang K zeigen (beides wird berechnet)</translation>
    </message>
    <message>
        <source>Compute</source>
        <translation>Berechnen</translation>
    </message>
    <message>
        <source>Per-channel kurtosis of the selected tensors</source>
        <translation>Kurtosis je Kanal der ausgewählten Tensoren</translation>
    </message>
    <message>
        <source>Select one or more tensors in the Tensors dock.</source>
        <translation>Wählen Sie einen oder mehrere Tensoren im Tensoren-Dock.</translation>
    </message>
    <message numerus="yes">
        <source>Kurtosis of %n tensor(s)</source>
        <translation>
            <numerusform>Kurtosis von %n Tensor</numerusform>
            <numerusform>Kurtosis von %n Tensoren</numerusform>
        </translation>
    </message>
    <message>
        <source>Select tensors and press Compute: the excess kurtosis of every channel, and each configuration&apos;s error against it.</source>
        <translation>Tensoren wählen und Berechnen drücken: die Exzess-Kurtosis jedes Kanals und der Fehler jeder Konfiguration dagegen.</translation>
    </message>
    <message>
        <source>%1: excess kurtosis of W %2</source>
        <translation>%1: Exzess-Kurtosis von W %2</translation>
    </message>
    <message>
        <source>, rotated (block %1) %2</source>
        <translation>, rotiert (Block %1) %2</translation>
    </message>
    <message>
        <source>No rotation: %1</source>
        <translation>Keine Rotation: %1</translation>
    </message>
</context>
<context>
    <name>quantscope::KvController</name>
    <message>
        <source>K&amp;V cache</source>
        <translation>K&amp;V-Cache</translation>
    </message>
    <message>
        <source>4-bit KV caches on your keys and values: FP8, codebooks, constOpt FP4, MXFP4, NVFP4, INT4</source>
        <translation>4-Bit-KV-Caches auf Ihren Keys und Values: FP8, Codebooks, constOpt FP4, MXFP4, NVFP4, INT4</translation>
    </message>
    <message>
        <source>Open &amp;KV Cache…</source>
        <translation>&amp;KV-Cache öffnen…</translation>
    </message>
    <message>
        <source>Study the K/V caches of a capture or of .safetensors/.npz/.npy arrays in the KV cache tab</source>
        <translation>Die K/V-Caches einer Aufzeichnung oder von .safetensors/.npz/.npy-Arrays im KV-Cache-Tab untersuchen</translation>
    </message>
    <message>
        <source>Open KV Cache</source>
        <translation>KV-Cache öffnen</translation>
    </message>
    <message>
        <source>K/V caches (*.safetensors *.npz *.npy);;All files (*)</source>
        <translation>K/V-Caches (*.safetensors *.npz *.npy);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>opened file</source>
        <translation>geöffnete Datei</translation>
    </message>
    <message>
        <source>the paired capture</source>
        <translation>die gekoppelte Aufzeichnung</translation>
    </message>
    <message>
        <source>No K/V cache: pair a capture or open one with File ▸ Open KV Cache….</source>
        <translation>Kein K/V-Cache: Koppeln Sie eine Aufzeichnung oder öffnen Sie einen mit Datei ▸ KV-Cache öffnen….</translation>
    </message>
    <message>
        <source>Reading the K/V cache of %1…</source>
        <translation>Lese den K/V-Cache von %1…</translation>
    </message>
    <message numerus="yes">
        <source>Studied %n scheme(s) and the plan in %1 ms.</source>
        <translation>
            <numerusform>%n Schema und den Plan in %1 ms untersucht.</numerusform>
            <numerusform>%n Schemata und den Plan in %1 ms untersucht.</numerusform>
        </translation>
    </message>
    <message>
        <source>The KV lab failed: check the file, then press Run again.</source>
        <translation>Das KV-Labor ist fehlgeschlagen: Prüfen Sie die Datei und drücken Sie dann erneut Ausführen.</translation>
    </message>
    <message>
        <source>Cancelled; the last report stays shown. Press Run to start again.</source>
        <translation>Abgebrochen; der letzte Bericht bleibt angezeigt. Drücken Sie Ausführen, um neu zu starten.</translation>
    </message>
    <message>
        <source>Cancelled. Press Run to start again.</source>
        <translation>Abgebrochen. Drücken Sie Ausführen, um neu zu starten.</translation>
    </message>
    <message>
        <source>Running every KV scheme on every layer and head…</source>
        <translation>Jedes KV-Schema läuft auf jeder Schicht und jedem Kopf…</translation>
    </message>
    <message>
        <source>KV lab on %1</source>
        <translation>KV-Labor auf %1</translation>
    </message>
</context>
<context>
    <name>quantscope::KvPlot</name>
    <message>
        <source>scale constant c (rotated keys)</source>
        <translation>Skalierungskonstante c (rotierte Keys)</translation>
    </message>
    <message>
        <source>K MSE</source>
        <translation>MSE von K</translation>
    </message>
    <message>
        <source>scale constant c</source>
        <translation>Skalierungskonstante c</translation>
    </message>
    <message>
        <source>MSE per coordinate</source>
        <translation>MSE je Koordinate</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>Schicht</translation>
    </message>
    <message>
        <source>excess kurtosis of K</source>
        <translation>Exzess-Kurtosis von K</translation>
    </message>
    <message>
        <source>level (coordinate of a rotated unit vector)</source>
        <translation>Stufe (Koordinate eines rotierten Einheitsvektors)</translation>
    </message>
    <message>
        <source>constOpt pow2 (UE8M0 scale)</source>
        <translation>constOpt pow2 (UE8M0-Skala)</translation>
    </message>
    <message>
        <source>constOpt unrounded (FP32 scale)</source>
        <translation>constOpt ungerundet (FP32-Skala)</translation>
    </message>
    <message>
        <source> c* %1</source>
        <translation> c* = %1</translation>
    </message>
    <message>
        <source> 0.156 (paper)</source>
        <translation> 0.156 (Paper)</translation>
    </message>
    <message>
        <source> 0.195 (pow2)</source>
        <translation> 0.195 (Zweierpotenz)</translation>
    </message>
    <message>
        <source>your keys, d = %1</source>
        <translation>Ihre Keys, d = %1</translation>
    </message>
    <message>
        <source>theory, d = %1</source>
        <translation>Theorie, d = %1</translation>
    </message>
    <message>
        <source>FP4 /6, %1</source>
        <translation>FP4 /6, %1</translation>
    </message>
    <message>
        <source>Lloyd–Max floor, %1</source>
        <translation>Lloyd–Max-Untergrenze, %1</translation>
    </message>
    <message>
        <source>solid: constOpt pow2 · dashed: FP4 /6 · dotted: Lloyd–Max floor</source>
        <translation>durchgezogen: constOpt pow2 · gestrichelt: FP4 /6 · gepunktet: Lloyd–Max-Untergrenze</translation>
    </message>
    <message>
        <source>before the rotation</source>
        <translation>vor der Rotation</translation>
    </message>
    <message>
        <source>after the rotation</source>
        <translation>nach der Rotation</translation>
    </message>
    <message>
        <source>theory (exact law at d = %1)</source>
        <translation>Theorie (exakte Verteilung bei d = %1)</translation>
    </message>
    <message>
        <source>refit on K, shared</source>
        <translation>auf K neu angepasst, gemeinsam</translation>
    </message>
    <message>
        <source>refit on V, shared</source>
        <translation>auf V neu angepasst, gemeinsam</translation>
    </message>
    <message>
        <source>K refit</source>
        <translation>K neu angepasst</translation>
    </message>
    <message>
        <source>V refit</source>
        <translation>V neu angepasst</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>%1: %2, %3</source>
        <translation>%1: %2, %3</translation>
    </message>
</context>
<context>
    <name>quantscope::KvView</name>
    <message>
        <source>Open KV Cache…</source>
        <translation>KV-Cache öffnen…</translation>
    </message>
    <message>
        <source>A capture, or K/V (and Q) arrays in .safetensors, .npz or .npy</source>
        <translation>Eine Aufzeichnung oder K/V- (und Q-)Arrays in .safetensors, .npz oder .npy</translation>
    </message>
    <message>
        <source>The plan&apos;s scheme for the keys</source>
        <translation>Das Schema des Plans für die Keys</translation>
    </message>
    <message>
        <source>The plan&apos;s scheme for the values</source>
        <translation>Das Schema des Plans für die Values</translation>
    </message>
    <message>
        <source>constOpt&apos;s scale constant: s = c·max|x| per group of 32</source>
        <translation>Die Skalierungskonstante von constOpt: s = c·max|x| je Gruppe von 32</translation>
    </message>
    <message>
        <source>The first and last n layers stay in BF16 (the plan and the storage)</source>
        <translation>Die ersten und letzten n Schichten bleiben in BF16 (Plan und Speicher)</translation>
    </message>
    <message>
        <source> GiB</source>
        <translation> GiB</translation>
    </message>
    <message>
        <source>GPU memory for the KV cache: how many tokens of context fit</source>
        <translation>GPU-Speicher für den KV-Cache: wie viele Kontext-Tokens passen</translation>
    </message>
    <message>
        <source>K scheme:</source>
        <translation>K-Schema:</translation>
    </message>
    <message>
        <source>c:</source>
        <translation>c =</translation>
    </message>
    <message>
        <source>Boundary layers:</source>
        <translation>Randschichten:</translation>
    </message>
    <message>
        <source>V scheme:</source>
        <translation>V-Schema:</translation>
    </message>
    <message>
        <source>KV memory:</source>
        <translation>KV-Speicher:</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>Ausführen</translation>
    </message>
    <message>
        <source>Every KV scheme on every layer and head, the plan, the c sweep, the codebooks and the distortion curves, in the background</source>
        <translation>Jedes KV-Schema auf jeder Schicht und jedem Kopf, der Plan, der c-Sweep, die Codebooks und die Verzerrungskurven, im Hintergrund</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Scheme</source>
        <translation>Schema</translation>
    </message>
    <message>
        <source>K rel MSE</source>
        <translation>K rel. MSE</translation>
    </message>
    <message>
        <source>V rel MSE</source>
        <translation>V rel. MSE</translation>
    </message>
    <message>
        <source>KL</source>
        <translation>KL-Div.</translation>
    </message>
    <message>
        <source>max |ΔP|</source>
        <translation>max. |ΔP|</translation>
    </message>
    <message>
        <source>Output rel error</source>
        <translation>Rel. Ausgabefehler</translation>
    </message>
    <message>
        <source>Bytes/token</source>
        <translation>Bytes/Token</translation>
    </message>
    <message>
        <source>Context tokens</source>
        <translation>Kontext-Tokens</translation>
    </message>
    <message>
        <source>The scheme whose K and V MSE per layer and head the table shows</source>
        <translation>Das Schema, dessen MSE von K und V je Schicht und Kopf die Tabelle zeigt</translation>
    </message>
    <message>
        <source>MSE per layer and head:</source>
        <translation>MSE je Schicht und Kopf:</translation>
    </message>
    <message>
        <source>No K/V cache yet: open a checkpoint with its capture beside it, pair a capture (File ▸ Open Capture…) or open K/V arrays (File ▸ Open KV Cache…).</source>
        <translation>Noch kein K/V-Cache: Öffnen Sie einen Checkpoint mit seiner Aufzeichnung daneben, koppeln Sie eine Aufzeichnung (Datei ▸ Aufzeichnung öffnen…) oder öffnen Sie K/V-Arrays (Datei ▸ KV-Cache öffnen…).</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>Attention errors need queries: capture them (Capture Activations in the Model tab) or add q to the file.</source>
        <translation>Aufmerksamkeitsfehler brauchen Queries: Zeichnen Sie sie auf (Aktivierungen aufzeichnen im Modell-Tab) oder fügen Sie der Datei q hinzu.</translation>
    </message>
    <message numerus="yes">
        <source>The plan: K and V schemes as chosen, the first and last %n layer(s) in BF16</source>
        <translation>
            <numerusform>Der Plan: K- und V-Schema wie gewählt, die erste und letzte %n Schicht in BF16</numerusform>
            <numerusform>Der Plan: K- und V-Schema wie gewählt, die ersten und letzten %n Schichten in BF16</numerusform>
        </translation>
    </message>
    <message>
        <source>K h%1</source>
        <translation>K K%1</translation>
    </message>
    <message>
        <source>V h%1</source>
        <translation>V K%1</translation>
    </message>
    <message>
        <source>layer %1</source>
        <translation>Schicht %1</translation>
    </message>
    <message>
        <source>%1, K head %2: MSE %3</source>
        <translation>%1, K-Kopf %2: MSE %3</translation>
    </message>
    <message>
        <source>%1, V head %2: MSE %3</source>
        <translation>%1, V-Kopf %2: MSE %3</translation>
    </message>
    <message>
        <source>Open a K/V cache (File ▸ Open KV Cache…) or pair a capture, then press Run.</source>
        <translation>Öffnen Sie einen K/V-Cache (Datei ▸ KV-Cache öffnen…) oder koppeln Sie eine Aufzeichnung und drücken Sie dann Ausführen.</translation>
    </message>
    <message>
        <source>The lab is running…</source>
        <translation>Das Labor läuft…</translation>
    </message>
    <message>
        <source>Press Run to study %1.</source>
        <translation>Drücken Sie Ausführen, um %1 zu untersuchen.</translation>
    </message>
    <message>
        <source>Nothing to draw in this report.</source>
        <translation>In diesem Bericht gibt es nichts zu zeichnen.</translation>
    </message>
    <message>
        <source>%1 (%2): %3 layer(s) × %4 KV head(s) × %5 tokens × d %6; %7 query head(s) × %8 queries; %9 ms.</source>
        <translation>%1 (%2): %3 Schicht(en) × %4 KV-Kopf/Köpfe × %5 Tokens × d %6; %7 Query-Kopf/Köpfe × %8 Queries; %9 ms.</translation>
    </message>
    <message>
        <source>c sweep on the rotated keys: c* = %1 (flat for c in [%2, %3]); MSE at 0.156 %4, at 0.195 %5.</source>
        <translation>c-Sweep auf den rotierten Keys: c* = %1 (flach für c in [%2, %3]); MSE bei 0.156 %4, bei 0.195 %5.</translation>
    </message>
    <message>
        <source>No queries: attention errors (KL, max |ΔP|, output error) need queries. Capture them (Capture Activations in the Model tab) or add q to the file, then run again.</source>
        <translation>Keine Queries: Aufmerksamkeitsfehler (KL, max. |ΔP|, Ausgabefehler) brauchen Queries. Zeichnen Sie sie auf (Aktivierungen aufzeichnen im Modell-Tab) oder fügen Sie der Datei q hinzu und führen Sie erneut aus.</translation>
    </message>
    <message>
        <source>Note: %1</source>
        <translation>Hinweis: %1</translation>
    </message>
    <message>
        <source>Open a K/V cache,
then press Run.</source>
        <translation>Öffnen Sie einen K/V-Cache,
dann Ausführen drücken.</translation>
    </message>
    <message>
        <source>Press Run to draw this.</source>
        <translation>Ausführen drücken, um dies zu zeichnen.</translation>
    </message>
</context>
<context>
    <name>quantscope::LayerHeatMap</name>
    <message>
        <source>projection</source>
        <translation>Projektion</translation>
    </message>
    <message>
        <source>layer</source>
        <translation>Schicht</translation>
    </message>
</context>
<context>
    <name>quantscope::LayersView</name>
    <message>
        <source>Relative error</source>
        <translation>Relativer Fehler</translation>
    </message>
    <message>
        <source>SQNR (dB)</source>
        <translation>SQNR (dB)</translation>
    </message>
    <message>
        <source>Kurtosis</source>
        <translation>Kurtosis</translation>
    </message>
    <message>
        <source>Residual rank at τ</source>
        <translation>Residualrang bei τ</translation>
    </message>
    <message>
        <source>Bits per weight</source>
        <translation>Bits pro Gewicht</translation>
    </message>
    <message>
        <source>The metric the cells are coloured by</source>
        <translation>Die Metrik, nach der die Zellen gefärbt sind</translation>
    </message>
    <message>
        <source>The scanned spec whose numbers are shown</source>
        <translation>Die gescannte Spezifikation, deren Zahlen gezeigt werden</translation>
    </message>
    <message>
        <source>Experts aggregated</source>
        <translation>Experten zusammengefasst</translation>
    </message>
    <message>
        <source>Experts of %1</source>
        <translation>Experten von %1</translation>
    </message>
    <message>
        <source>Scan checkpoint</source>
        <translation>Checkpoint scannen</translation>
    </message>
    <message>
        <source>Scanning</source>
        <translation>Scan läuft</translation>
    </message>
    <message numerus="yes">
        <source>%n module(s) scanned</source>
        <translation>
            <numerusform>%n Modul gescannt</numerusform>
            <numerusform>%n Module gescannt</numerusform>
        </translation>
    </message>
    <message>
        <source>Quantize every 2-D weight with the panel’s configurations (resumes an interrupted scan)</source>
        <translation>Jedes 2-D-Gewicht mit den Konfigurationen des Panels quantisieren (setzt einen unterbrochenen Scan fort)</translation>
    </message>
    <message>
        <source>Residual spectra</source>
        <translation>Residualspektren</translation>
    </message>
    <message>
        <source>Also count the residual’s singular values above τ (slower)</source>
        <translation>Auch die Singulärwerte des Residuums über τ zählen (langsamer)</translation>
    </message>
    <message>
        <source>Scanning %1: the map fills in when the scan finishes (Cancel keeps what is done).</source>
        <translation>Scanne %1: die Karte füllt sich, wenn der Scan fertig ist (Abbrechen behält, was fertig ist).</translation>
    </message>
    <message>
        <source>No checkpoint open: open one (File ▸ Open…, or Help ▸ Open Demo), then press Scan checkpoint.</source>
        <translation>Kein Checkpoint geöffnet: einen öffnen (Datei ▸ Öffnen… oder Hilfe ▸ Demo öffnen), dann „Checkpoint scannen“ drücken.</translation>
    </message>
    <message>
        <source>%1 is open and not scanned yet: press Scan checkpoint to measure every module with the Quantizer dock&apos;s configurations.</source>
        <translation>%1 ist geöffnet und noch nicht gescannt: „Checkpoint scannen“ drücken, um jedes Modul mit den Konfigurationen des Quantisierer-Docks zu messen.</translation>
    </message>
</context>
<context>
    <name>quantscope::LoadController</name>
    <message>
        <source>Could not read the importance matrix: %1</source>
        <translation>Die Wichtigkeitsmatrix konnte nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>Importance matrix %1 read (%2 entries): the gguf method&apos;s K-quants with imatrix take their weights from it</source>
        <translation>Wichtigkeitsmatrix %1 gelesen (%2 Einträge): die K-Quants der Methode gguf mit imatrix nehmen ihre Gewichte daraus</translation>
    </message>
    <message>
        <source>Opening the demo…</source>
        <translation>Demo wird geöffnet…</translation>
    </message>
    <message>
        <source>Opening %1…</source>
        <translation>%1 wird geöffnet…</translation>
    </message>
    <message>
        <source>Opening failed</source>
        <translation>Öffnen fehlgeschlagen</translation>
    </message>
    <message>
        <source>Demo</source>
        <translation>Demomodell</translation>
    </message>
    <message>
        <source>Paired the demo&apos;s activation %1 (%2)</source>
        <translation>Die Aktivierung %1 der Demo gekoppelt (%2)</translation>
    </message>
    <message>
        <source>Opened the demo</source>
        <translation>Demo geöffnet</translation>
    </message>
    <message numerus="yes">
        <source>Opened the demo with %n warning(s)</source>
        <translation>
            <numerusform>Demo mit %n Warnung geöffnet</numerusform>
            <numerusform>Demo mit %n Warnungen geöffnet</numerusform>
        </translation>
    </message>
    <message>
        <source>Opened %1</source>
        <translation>%1 geöffnet</translation>
    </message>
    <message numerus="yes">
        <source>Opened %1 with %n warning(s)</source>
        <translation>
            <numerusform>%1 mit %n Warnung geöffnet</numerusform>
            <numerusform>%1 mit %n Warnungen geöffnet</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1: %n tensor(s)</source>
        <translation>
            <numerusform>%1: %n Tensor</numerusform>
            <numerusform>%1: %n Tensoren</numerusform>
        </translation>
    </message>
    <message>
        <source>Quantscope could not open its demo checkpoint.</source>
        <translation>Quantscope konnte seinen Demo-Checkpoint nicht öffnen.</translation>
    </message>
    <message>
        <source>Quantscope could not open “%1”.</source>
        <translation>Quantscope konnte „%1“ nicht öffnen.</translation>
    </message>
    <message>
        <source>Could Not Open Checkpoint</source>
        <translation>Checkpoint konnte nicht geöffnet werden</translation>
    </message>
    <message>
        <source>Open Leniently</source>
        <translation>Nachsichtig öffnen</translation>
    </message>
    <message>
        <source>Accept gaps and trailing bytes between tensors, as some writers leave them. Overlapping or out-of-range tensors stay errors.</source>
        <translation>Lücken und überzählige Bytes zwischen Tensoren akzeptieren, wie manche Schreibprogramme sie hinterlassen. Überlappende oder außerhalb der Datei liegende Tensoren bleiben Fehler.</translation>
    </message>
    <message>
        <source>Paired %1 as the activation; the next run shows its channel maxima</source>
        <translation>%1 als Aktivierung gekoppelt; der nächste Lauf zeigt ihre Kanal-Maxima</translation>
    </message>
    <message>
        <source>Could not open the activation file “%1”: %2</source>
        <translation>Die Aktivierungsdatei „%1“ konnte nicht geöffnet werden: %2</translation>
    </message>
    <message>
        <source>“%1” holds no tensor to pair</source>
        <translation>„%1“ enthält keinen Tensor zum Koppeln</translation>
    </message>
    <message>
        <source>Paired %1 from %2 as the activation</source>
        <translation>%1 aus %2 als Aktivierung gekoppelt</translation>
    </message>
    <message>
        <source>Open a checkpoint first, then its capture</source>
        <translation>Zuerst einen Checkpoint öffnen, dann seine Aufzeichnung</translation>
    </message>
    <message>
        <source>Unpaired the capture %1</source>
        <translation>Aufzeichnung %1 entkoppelt</translation>
    </message>
    <message numerus="yes">
        <source>%1 of %2 modules, %n token(s)</source>
        <translation>
            <numerusform>%1 von %2 Modulen, %n Token</numerusform>
            <numerusform>%1 von %2 Modulen, %n Tokens</numerusform>
        </translation>
    </message>
    <message>
        <source>Opening the capture %1…</source>
        <translation>Aufzeichnung %1 wird geöffnet…</translation>
    </message>
    <message>
        <source>Found the capture %1 beside the checkpoint but could not pair it: %2</source>
        <translation>Aufzeichnung %1 neben dem Checkpoint gefunden, konnte sie aber nicht koppeln: %2</translation>
    </message>
    <message>
        <source>Could not pair the capture %1: %2</source>
        <translation>Aufzeichnung %1 konnte nicht gekoppelt werden: %2</translation>
    </message>
    <message>
        <source>The capture beside the checkpoint did not pair (see the log)</source>
        <translation>Die Aufzeichnung neben dem Checkpoint ließ sich nicht koppeln (siehe Protokoll)</translation>
    </message>
    <message>
        <source>The capture did not pair (see the log)</source>
        <translation>Die Aufzeichnung ließ sich nicht koppeln (siehe Protokoll)</translation>
    </message>
    <message>
        <source>Paired the capture beside the checkpoint, %1: %2</source>
        <translation>Aufzeichnung neben dem Checkpoint gekoppelt, %1: %2</translation>
    </message>
    <message>
        <source>Paired the capture %1: %2</source>
        <translation>Aufzeichnung %1 gekoppelt: %2</translation>
    </message>
    <message>
        <source>Quantize jobs and scans now report the output-aware error.</source>
        <translation>Quantisierungsaufträge und Scans melden jetzt den ausgabebezogenen Fehler.</translation>
    </message>
    <message>
        <source>Capture shape mismatch: %1</source>
        <translation>Form passt nicht zur Aufzeichnung: %1</translation>
    </message>
    <message numerus="yes">
        <source>%n more capture shape mismatch(es)</source>
        <translation>
            <numerusform>%n weitere Formabweichung zur Aufzeichnung</numerusform>
            <numerusform>%n weitere Formabweichungen zur Aufzeichnung</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n weight(s) of the checkpoint are not in the capture (no output-aware error for them)</source>
        <translation>
            <numerusform>%n Gewicht des Checkpoints ist nicht in der Aufzeichnung (kein ausgabebezogener Fehler dafür)</numerusform>
            <numerusform>%n Gewichte des Checkpoints sind nicht in der Aufzeichnung (kein ausgabebezogener Fehler für sie)</numerusform>
        </translation>
    </message>
    <message>
        <source>Reading the importance matrix %1…</source>
        <translation>Wichtigkeitsmatrix %1 wird gelesen…</translation>
    </message>
</context>
<context>
    <name>quantscope::LogView</name>
    <message>
        <source>Time</source>
        <translation>Zeit</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>Meldung</translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation>&amp;Kopieren</translation>
    </message>
    <message>
        <source>C&amp;lear</source>
        <translation>&amp;Leeren</translation>
    </message>
</context>
<context>
    <name>quantscope::MainWindow</name>
    <message>
        <source>Open llama.cpp &amp;Imatrix…</source>
        <translation>llama.cpp-&amp;Imatrix öffnen…</translation>
    </message>
    <message>
        <source>Read llama.cpp&apos;s importance matrix (imatrix.dat or imatrix GGUF): the gguf method&apos;s K-quants with imatrix then take their weights from it instead of a capture</source>
        <translation>Die Wichtigkeitsmatrix von llama.cpp lesen (imatrix.dat oder imatrix-GGUF): die K-Quants der Methode gguf mit imatrix nehmen ihre Gewichte dann daraus statt aus einer Aufzeichnung</translation>
    </message>
    <message>
        <source>Unpair Imatri&amp;x</source>
        <translation>Imatri&amp;x entkoppeln</translation>
    </message>
    <message>
        <source>Open llama.cpp Imatrix</source>
        <translation>llama.cpp-Imatrix öffnen</translation>
    </message>
    <message>
        <source>Importance matrices (*.dat *.gguf);;All files (*)</source>
        <translation>Wichtigkeitsmatrizen (*.dat *.gguf);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Could not read the importance matrix.</source>
        <translation>Die Wichtigkeitsmatrix konnte nicht gelesen werden.</translation>
    </message>
    <message>
        <source>Importance matrix: %1</source>
        <translation>Wichtigkeitsmatrix: %1</translation>
    </message>
    <message>
        <source>&amp;Open…</source>
        <translation>Ö&amp;ffnen…</translation>
    </message>
    <message>
        <source>Open &amp;Folder…</source>
        <translation>&amp;Ordner öffnen…</translation>
    </message>
    <message>
        <source>Open a checkpoint folder</source>
        <translation>Einen Checkpoint-Ordner öffnen</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <source>&amp;Filter Tensors</source>
        <translation>Tensoren &amp;filtern</translation>
    </message>
    <message>
        <source>Show &amp;Status Bar</source>
        <translation>&amp;Statusleiste anzeigen</translation>
    </message>
    <message>
        <source>Open &amp;Demo</source>
        <translation>&amp;Demo öffnen</translation>
    </message>
    <message>
        <source>Open the built-in demo checkpoint</source>
        <translation>Den eingebauten Demo-Checkpoint öffnen</translation>
    </message>
    <message>
        <source>&amp;About Quantscope</source>
        <translation>Ü&amp;ber Quantscope</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>&amp;Zuletzt geöffnet</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Ansicht</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <source>Compute device: detecting…</source>
        <translation>Rechengerät: wird ermittelt…</translation>
    </message>
    <message>
        <source>The device quantizers and metrics run on</source>
        <translation>Das Gerät, auf dem Quantisierer und Metriken laufen</translation>
    </message>
    <message>
        <source>unknown (%1)</source>
        <translation>unbekannt (%1)</translation>
    </message>
    <message>
        <source>Compute device: unknown</source>
        <translation>Rechengerät: unbekannt</translation>
    </message>
    <message>
        <source>Quantscope</source>
        <translation>Quantscope</translation>
    </message>
    <message>
        <source>Quantscope — %1</source>
        <translation>Quantscope — %1</translation>
    </message>
    <message numerus="yes">
        <source>%n tensor(s)</source>
        <translation>
            <numerusform>%n Tensor</numerusform>
            <numerusform>%n Tensoren</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n shard(s)</source>
        <translation>
            <numerusform>%n Shard</numerusform>
            <numerusform>%n Shards</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n file(s)</source>
        <translation>
            <numerusform>%n Datei</numerusform>
            <numerusform>%n Dateien</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n warning(s)</source>
        <translation>
            <numerusform>%n Warnung</numerusform>
            <numerusform>%n Warnungen</numerusform>
        </translation>
    </message>
    <message>
        <source>Open Checkpoint</source>
        <translation>Checkpoint öffnen</translation>
    </message>
    <message>
        <source>Open Checkpoint Folder</source>
        <translation>Checkpoint-Ordner öffnen</translation>
    </message>
    <message>
        <source>still being detected</source>
        <translation>wird noch ermittelt</translation>
    </message>
    <message>
        <source>About Quantscope</source>
        <translation>Über Quantscope</translation>
    </message>
    <message numerus="yes">
        <source>Quantscope %1; jobs run on %n thread(s)</source>
        <translation>
            <numerusform>Quantscope %1; Aufträge laufen auf %n Thread</numerusform>
            <numerusform>Quantscope %1; Aufträge laufen auf %n Threads</numerusform>
        </translation>
    </message>
    <message>
        <source>Open a .safetensors file, a sharded checkpoint&apos;s index, a .npy/.npz file or a session</source>
        <translation>Eine .safetensors-Datei, den Index eines aufgeteilten Checkpoints, eine .npy/.npz-Datei oder eine Sitzung öffnen</translation>
    </message>
    <message>
        <source>Open &amp;Session…</source>
        <translation>&amp;Sitzung öffnen…</translation>
    </message>
    <message>
        <source>Restore a saved .qscope session</source>
        <translation>Eine gespeicherte .qscope-Sitzung wiederherstellen</translation>
    </message>
    <message>
        <source>&amp;Save Session</source>
        <translation>Sitzung &amp;speichern</translation>
    </message>
    <message>
        <source>Save the checkpoint, selection, configurations and results as a .qscope file</source>
        <translation>Checkpoint, Auswahl, Konfigurationen und Ergebnisse als .qscope-Datei speichern</translation>
    </message>
    <message>
        <source>Save Session &amp;As…</source>
        <translation>Sitzung speichern &amp;unter…</translation>
    </message>
    <message>
        <source>Pair Activation from &amp;File…</source>
        <translation>Aktivierung aus &amp;Datei koppeln…</translation>
    </message>
    <message>
        <source>Open an activation tensor (.npy, .npz, .safetensors) to compare its channel maxima with the weights&apos;</source>
        <translation>Einen Aktivierungstensor (.npy, .npz, .safetensors) öffnen, um seine Kanal-Maxima mit denen der Gewichte zu vergleichen</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>&amp;Ausführen</translation>
    </message>
    <message>
        <source>Quantize the selected tensors with every configuration</source>
        <translation>Die ausgewählten Tensoren mit jeder Konfiguration quantisieren</translation>
    </message>
    <message>
        <source>&amp;Cancel Job</source>
        <translation>Auftrag a&amp;bbrechen</translation>
    </message>
    <message>
        <source>&amp;Add Configuration</source>
        <translation>Konfiguration &amp;hinzufügen</translation>
    </message>
    <message>
        <source>Compare one more configuration (up to four)</source>
        <translation>Eine weitere Konfiguration vergleichen (bis zu vier)</translation>
    </message>
    <message>
        <source>&amp;Reset Layout</source>
        <translation>Anordnung &amp;zurücksetzen</translation>
    </message>
    <message>
        <source>&amp;Distribution</source>
        <translation>&amp;Verteilung</translation>
    </message>
    <message>
        <source>W and Ŵ histograms, the error, and per-channel maxima</source>
        <translation>Histogramme von W und Ŵ, der Fehler und die Kanal-Maxima</translation>
    </message>
    <message>
        <source>&amp;Numbers</source>
        <translation>&amp;Zahlen</translation>
    </message>
    <message>
        <source>Every metric of every configuration; copy or export them</source>
        <translation>Jede Kennzahl jeder Konfiguration; kopieren oder exportieren</translation>
    </message>
    <message>
        <source>Tensors</source>
        <translation>Tensoren</translation>
    </message>
    <message>
        <source>Quantizer</source>
        <translation>Quantisierer</translation>
    </message>
    <message>
        <source>Job</source>
        <translation>Auftrag</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>Protokoll</translation>
    </message>
    <message>
        <source>&amp;Quantize</source>
        <translation>&amp;Quantisieren</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>&amp;Farbschema</translation>
    </message>
    <message>
        <source>&amp;System</source>
        <translation>&amp;Systemvorgabe</translation>
    </message>
    <message>
        <source>&amp;Light</source>
        <translation>&amp;Hell</translation>
    </message>
    <message>
        <source>&amp;Dark</source>
        <translation>&amp;Dunkel</translation>
    </message>
    <message>
        <source>Compute device %1</source>
        <translation>Rechengerät %1</translation>
    </message>
    <message>
        <source>Could not detect the compute devices: %1</source>
        <translation>Die Rechengeräte konnten nicht erkannt werden: %1</translation>
    </message>
    <message>
        <source> (%1)</source>
        <translation> (%1)</translation>
    </message>
    <message>
        <source>Checkpoints and sessions (*.safetensors *.safetensors.index.json *.npy *.npz *.gguf *.qscope);;All files (*)</source>
        <translation>Checkpoints und Sitzungen (*.safetensors *.safetensors.index.json *.npy *.npz *.gguf *.qscope);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Open Session</source>
        <translation>Sitzung öffnen</translation>
    </message>
    <message>
        <source>Quantscope sessions (*.qscope)</source>
        <translation>Quantscope-Sitzungen (*.qscope)</translation>
    </message>
    <message>
        <source>Save Session</source>
        <translation>Sitzung speichern</translation>
    </message>
    <message>
        <source>session</source>
        <translation>sitzung</translation>
    </message>
    <message>
        <source>Pair Activation from File</source>
        <translation>Aktivierung aus Datei koppeln</translation>
    </message>
    <message>
        <source>Tensors (*.npy *.npz *.safetensors);;All files (*)</source>
        <translation>Tensoren (*.npy *.npz *.safetensors);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Quantscope %1&lt;/h3&gt;&lt;p&gt;A workbench for quantizing the tensors of large language models.&lt;/p&gt;&lt;p&gt;&lt;b&gt;Compute device:&lt;/b&gt; %2&lt;br&gt;&lt;b&gt;GPU backends in this build:&lt;/b&gt; %3&lt;br&gt;&lt;b&gt;Job threads:&lt;/b&gt; %4&lt;br&gt;&lt;b&gt;Qt:&lt;/b&gt; %5&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Quantscope %1&lt;/h3&gt;&lt;p&gt;Eine Werkbank zum Quantisieren der Tensoren großer Sprachmodelle.&lt;/p&gt;&lt;p&gt;&lt;b&gt;Rechengerät:&lt;/b&gt; %2&lt;br&gt;&lt;b&gt;GPU-Backends in diesem Build:&lt;/b&gt; %3&lt;br&gt;&lt;b&gt;Auftrags-Threads:&lt;/b&gt; %4&lt;br&gt;&lt;b&gt;Qt:&lt;/b&gt; %5&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&amp;Spectrum</source>
        <translation>&amp;Spektrum</translation>
    </message>
    <message>
        <source>Singular values of W − Ŵ: choose a MiLo rank by its error and size</source>
        <translation>Singulärwerte von W − Ŵ: einen MiLo-Rang nach Fehler und Größe wählen</translation>
    </message>
    <message>
        <source>E&amp;xport</source>
        <translation>E&amp;xportieren</translation>
    </message>
    <message>
        <source>A recipe as a Quark, compressed-tensors, llm-compressor or Quantscope config</source>
        <translation>Ein Rezept als Konfiguration für Quark, compressed-tensors, llm-compressor oder Quantscope</translation>
    </message>
    <message>
        <source>&amp;Overview</source>
        <translation>Ü&amp;bersicht</translation>
    </message>
    <message>
        <source>One sortable row per tensor and configuration; export it as CSV</source>
        <translation>Eine sortierbare Zeile je Tensor und Konfiguration; als CSV exportierbar</translation>
    </message>
    <message>
        <source>L&amp;anguage</source>
        <translation>&amp;Sprache</translation>
    </message>
    <message>
        <source>Open &amp;Capture…</source>
        <translation>&amp;Aufzeichnung öffnen…</translation>
    </message>
    <message>
        <source>Pair a calibration capture (quantscope-cli capture) with the checkpoint: every run then reports the output-aware error E‖(W − Ŵ)x‖²</source>
        <translation>Eine Kalibrier-Aufzeichnung (quantscope-cli capture) mit dem Checkpoint koppeln: Jeder Lauf meldet dann den ausgabebezogenen Fehler E‖(W − Ŵ)x‖²</translation>
    </message>
    <message>
        <source>Unpair Capt&amp;ure</source>
        <translation>Aufzeichnung &amp;entkoppeln</translation>
    </message>
    <message>
        <source>Open Capture</source>
        <translation>Aufzeichnung öffnen</translation>
    </message>
    <message>
        <source>Captures (*.safetensors);;All files (*)</source>
        <translation>Aufzeichnungen (*.safetensors);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Export &amp;Report…</source>
        <translation>&amp;Bericht exportieren…</translation>
    </message>
    <message>
        <source>Write the session as one self-contained HTML file (plots, tables, configurations, the checkpoint&apos;s name and hash) to share</source>
        <translation>Die Sitzung als eine eigenständige HTML-Datei schreiben (Diagramme, Tabellen, Konfigurationen, Name und Hash des Checkpoints), zum Weitergeben</translation>
    </message>
    <message>
        <source>&amp;User Guide</source>
        <translation>&amp;Benutzerhandbuch</translation>
    </message>
    <message>
        <source>Open the user guide: every view, dock and menu explained</source>
        <translation>Das Benutzerhandbuch öffnen: jede Ansicht, jedes Dock und jedes Menü erklärt</translation>
    </message>
    <message>
        <source>Could not write “%1”.</source>
        <translation>„%1“ konnte nicht geschrieben werden.</translation>
    </message>
    <message>
        <source>Writing the report %1…</source>
        <translation>Schreibe den Bericht %1…</translation>
    </message>
    <message>
        <source>Wrote the report %1</source>
        <translation>Bericht %1 geschrieben</translation>
    </message>
    <message>
        <source>The report was not written: %1</source>
        <translation>Der Bericht wurde nicht geschrieben: %1</translation>
    </message>
    <message>
        <source>The user guide is missing from this build</source>
        <translation>Diesem Build fehlt das Benutzerhandbuch</translation>
    </message>
    <message>
        <source>Quantscope User Guide</source>
        <translation>Quantscope-Benutzerhandbuch</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>Schließen</translation>
    </message>
    <message>
        <source>Export Report</source>
        <translation>Bericht exportieren</translation>
    </message>
    <message>
        <source>HTML reports (*.html)</source>
        <translation>HTML-Berichte (*.html)</translation>
    </message>
    <message>
        <source>report</source>
        <translation>bericht</translation>
    </message>
    <message>
        <source>Jobs</source>
        <translation>Aufträge</translation>
    </message>
    <message>
        <source>No translation for %1: the window stays in English.</source>
        <translation>Keine Übersetzung für %1: das Fenster bleibt auf Englisch.</translation>
    </message>
    <message>
        <source>Language: %1</source>
        <translation>Sprache: %1</translation>
    </message>
</context>
<context>
    <name>quantscope::ModelController</name>
    <message>
        <source>&amp;Model</source>
        <translation>&amp;Modell</translation>
    </message>
    <message>
        <source>What quantization does to the model: KL, top-1 and perplexity through your PyTorch</source>
        <translation>Was die Quantisierung mit dem Modell macht: KL, Top-1 und Perplexität, gemessen mit Ihrem PyTorch</translation>
    </message>
    <message>
        <source>Checking %1…</source>
        <translation>%1 wird geprüft…</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>CUDA: %1</source>
        <translation>CUDA: %1</translation>
    </message>
    <message>
        <source>no CUDA: the model runs on the CPU</source>
        <translation>kein CUDA: Das Modell läuft auf der CPU</translation>
    </message>
    <message>
        <source>Choose the model folder.</source>
        <translation>Den Modellordner wählen.</translation>
    </message>
    <message>
        <source>Choose the calibration data: a text file, or token ids as .npy.</source>
        <translation>Die Kalibrierdaten wählen: eine Textdatei oder Token-IDs als .npy.</translation>
    </message>
    <message>
        <source>The Budget tab has no chosen recipe: scan in the Layers tab first.</source>
        <translation>Der Reiter „Budget“ hat kein gewähltes Rezept: zuerst im Reiter „Schichten“ scannen.</translation>
    </message>
    <message>
        <source>Choose the recipe file.</source>
        <translation>Die Rezeptdatei wählen.</translation>
    </message>
    <message>
        <source>Could not write the recipe: %1</source>
        <translation>Das Rezept konnte nicht geschrieben werden: %1</translation>
    </message>
    <message>
        <source>Measuring each layer&apos;s KL…</source>
        <translation>KL jeder Schicht wird gemessen…</translation>
    </message>
    <message>
        <source>The eval failed.</source>
        <translation>Die Evaluierung ist fehlgeschlagen.</translation>
    </message>
    <message numerus="yes">
        <source>Measured %n module(s).</source>
        <translation>
            <numerusform>%n Modul gemessen.</numerusform>
            <numerusform>%n Module gemessen.</numerusform>
        </translation>
    </message>
    <message>
        <source>The eval report could not be read.</source>
        <translation>Der Evaluierungsbericht konnte nicht gelesen werden.</translation>
    </message>
    <message>
        <source>The Budget tab has no budget yet: scan in the Layers tab with several configurations first.</source>
        <translation>Der Reiter „Budget“ hat noch kein Budget: zuerst im Reiter „Schichten“ mit mehreren Konfigurationen scannen.</translation>
    </message>
    <message numerus="yes">
        <source>Solving the budget at %n point(s)…</source>
        <translation>
            <numerusform>Budget wird an %n Punkt gelöst…</numerusform>
            <numerusform>Budget wird an %n Punkten gelöst…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Measured %1 of %n budget point(s).</source>
        <translation>
            <numerusform>%1 von %n Budgetpunkt gemessen.</numerusform>
            <numerusform>%1 von %n Budgetpunkten gemessen.</numerusform>
        </translation>
    </message>
    <message>
        <source>Measuring the budget points failed.</source>
        <translation>Das Messen der Budgetpunkte ist fehlgeschlagen.</translation>
    </message>
    <message>
        <source>Cancelled; the points measured before stay shown.</source>
        <translation>Abgebrochen; die bereits gemessenen Punkte bleiben sichtbar.</translation>
    </message>
    <message>
        <source>Save the Capture</source>
        <translation>Aufzeichnung speichern</translation>
    </message>
    <message>
        <source>Captures (*.safetensors)</source>
        <translation>Aufzeichnungen (*.safetensors)</translation>
    </message>
    <message>
        <source>Capturing the model&apos;s activations…</source>
        <translation>Aktivierungen des Modells werden aufgezeichnet…</translation>
    </message>
    <message>
        <source>The capture failed.</source>
        <translation>Die Aufzeichnung ist fehlgeschlagen.</translation>
    </message>
    <message>
        <source>Captured %1 token(s) into %2.</source>
        <translation>%1 Token in %2 aufgezeichnet.</translation>
    </message>
    <message>
        <source>Checking %1</source>
        <translation>Prüfe %1</translation>
    </message>
    <message>
        <source>Capture of %1</source>
        <translation>Aufzeichnung von %1</translation>
    </message>
    <message>
        <source>Evaluation: each layer&apos;s KL</source>
        <translation>Auswertung: KL jeder Schicht</translation>
    </message>
    <message numerus="yes">
        <source>Evaluation: the budget at %n point(s)</source>
        <translation>
            <numerusform>Auswertung: das Bitbudget an %n Punkt</numerusform>
            <numerusform>Auswertung: das Bitbudget an %n Punkten</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>quantscope::ModelView</name>
    <message>
        <source>…</source>
        <translation>…</translation>
    </message>
    <message>
        <source>undefined</source>
        <translation>undefiniert</translation>
    </message>
    <message>
        <source>A Hugging Face model folder (or a .gguf)</source>
        <translation>Ein Hugging-Face-Modellordner (oder eine .gguf-Datei)</translation>
    </message>
    <message>
        <source>UTF-8 text, or token ids as .npy</source>
        <translation>UTF-8-Text oder Token-IDs als .npy</translation>
    </message>
    <message>
        <source>Sequences the model runs on</source>
        <translation>Sequenzen, auf denen das Modell läuft</translation>
    </message>
    <message>
        <source>Tokens per sequence</source>
        <translation>Tokens pro Sequenz</translation>
    </message>
    <message>
        <source>×</source>
        <translation>×</translation>
    </message>
    <message>
        <source>tokens</source>
        <translation>Tokens</translation>
    </message>
    <message>
        <source>The interpreter with PyTorch and transformers the bridge runs in</source>
        <translation>Der Interpreter mit PyTorch und transformers, in dem die Brücke läuft</translation>
    </message>
    <message>
        <source>Check</source>
        <translation>Prüfen</translation>
    </message>
    <message>
        <source>Whether the interpreter has what the bridge needs, and their versions</source>
        <translation>Ob der Interpreter hat, was die Brücke braucht, und in welchen Versionen</translation>
    </message>
    <message>
        <source>the Recipe tab&apos;s recipe</source>
        <translation>das Rezept des Reiters „Rezept“</translation>
    </message>
    <message>
        <source>the Budget tab&apos;s chosen recipe</source>
        <translation>das gewählte Rezept des Reiters „Budget“</translation>
    </message>
    <message>
        <source>a recipe file</source>
        <translation>eine Rezeptdatei</translation>
    </message>
    <message>
        <source>R.json</source>
        <translation>R.json</translation>
    </message>
    <message>
        <source>Choose a Recipe</source>
        <translation>Rezept wählen</translation>
    </message>
    <message>
        <source>Recipes (*.json);;All files (*)</source>
        <translation>Rezepte (*.json);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>Modell:</translation>
    </message>
    <message>
        <source>Choose the Model Folder</source>
        <translation>Modellordner wählen</translation>
    </message>
    <message>
        <source>Calibration data:</source>
        <translation>Kalibrierdaten:</translation>
    </message>
    <message>
        <source>Choose Calibration Data</source>
        <translation>Kalibrierdaten wählen</translation>
    </message>
    <message>
        <source>Text or token ids (*.txt *.npy);;All files (*)</source>
        <translation>Text oder Token-IDs (*.txt *.npy);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Samples:</source>
        <translation>Stichproben:</translation>
    </message>
    <message>
        <source>Capture:</source>
        <translation>Aufzeichnung:</translation>
    </message>
    <message>
        <source>Interpreter:</source>
        <translation>Python-Interpreter:</translation>
    </message>
    <message>
        <source>Recipe:</source>
        <translation>Rezept:</translation>
    </message>
    <message>
        <source>Measure Layers</source>
        <translation>Schichten messen</translation>
    </message>
    <message>
        <source>One eval with the recipe, each module also quantized alone: its KL against its output-aware and weight error</source>
        <translation>Eine Evaluierung mit dem Rezept, jedes Modul zusätzlich allein quantisiert: seine KL gegenüber seinem ausgabebezogenen und seinem Gewichtsfehler</translation>
    </message>
    <message>
        <source> points</source>
        <translation> Punkte</translation>
    </message>
    <message>
        <source>Measure Budget Points</source>
        <translation>Budgetpunkte messen</translation>
    </message>
    <message>
        <source>The Budget tab&apos;s optimum at budgets from its least to its most MB, each measured by an eval</source>
        <translation>Das Optimum des Reiters „Budget“ bei Budgets von seinem kleinsten bis zu seinem größten MB-Wert, jeweils durch eine Evaluierung gemessen</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Measure layers to see which error predicts the model&apos;s KL.</source>
        <translation>Schichten messen, um zu sehen, welcher Fehler die KL des Modells vorhersagt.</translation>
    </message>
    <message>
        <source>Scan in the Layers tab; the Budget tab&apos;s optima can then be measured here.</source>
        <translation>Im Reiter „Schichten“ scannen; die Optima des Reiters „Budget“ lassen sich dann hier messen.</translation>
    </message>
    <message>
        <source>MB</source>
        <translation>MB</translation>
    </message>
    <message>
        <source>Predicted error</source>
        <translation>Vorhergesagter Fehler</translation>
    </message>
    <message>
        <source>Measured KL ± 95 %</source>
        <translation>Gemessene KL ± 95 %</translation>
    </message>
    <message>
        <source>Top-1 agreement</source>
        <translation>Top-1-Übereinstimmung</translation>
    </message>
    <message>
        <source>Perplexity</source>
        <translation>Perplexität</translation>
    </message>
    <message>
        <source>none paired (File ▸ Open Capture…): modules get no output-aware error</source>
        <translation>keine gekoppelt (Datei ▸ Aufzeichnung öffnen…): Module erhalten keinen ausgabebezogenen Fehler</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message numerus="yes">
        <source>Spearman ρ against the measured KL: output-aware error %1 (%n module(s)), </source>
        <translation>
            <numerusform>Spearman-ρ gegenüber der gemessenen KL: ausgabebezogener Fehler %1 (%n Modul), </numerusform>
            <numerusform>Spearman-ρ gegenüber der gemessenen KL: ausgabebezogener Fehler %1 (%n Module), </numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>weight error ‖W − Ŵ‖/‖W‖ %1 (%n module(s)).</source>
        <translation>
            <numerusform>Gewichtsfehler ‖W − Ŵ‖/‖W‖ %1 (%n Modul).</numerusform>
            <numerusform>Gewichtsfehler ‖W − Ŵ‖/‖W‖ %1 (%n Module).</numerusform>
        </translation>
    </message>
    <message>
        <source>No module has an output-aware error: pair a capture (File ▸ Open Capture…).</source>
        <translation>Kein Modul hat einen ausgabebezogenen Fehler: eine Aufzeichnung koppeln (Datei ▸ Aufzeichnung öffnen…).</translation>
    </message>
    <message>
        <source>not measured</source>
        <translation>nicht gemessen</translation>
    </message>
    <message>
        <source>%1 (%2 … %3)</source>
        <translation>%1 (%2 … %3)</translation>
    </message>
    <message>
        <source>Spearman ρ against the measured KL over the points: weight error %1, output-aware error %2.</source>
        <translation>Spearman-ρ gegenüber der gemessenen KL über die Punkte: Gewichtsfehler %1, ausgabebezogener Fehler %2.</translation>
    </message>
    <message>
        <source>The output-aware error ranks the points better.</source>
        <translation>Der ausgabebezogene Fehler ordnet die Punkte besser.</translation>
    </message>
    <message>
        <source>The weight error ranks the points better.</source>
        <translation>Der Gewichtsfehler ordnet die Punkte besser.</translation>
    </message>
    <message>
        <source>Both rank the points alike.</source>
        <translation>Beide ordnen die Punkte gleich.</translation>
    </message>
    <message>
        <source>The output-aware error needs a scan with a capture.</source>
        <translation>Der ausgabebezogene Fehler braucht einen Scan mit Aufzeichnung.</translation>
    </message>
    <message>
        <source>Capture Activations</source>
        <translation>Aktivierungen aufzeichnen</translation>
    </message>
    <message>
        <source>Run the model on the calibration data and keep each layer&apos;s input Gram, ranges and sampled rows, and the K/V cache: a capture, paired with the checkpoint</source>
        <translation>Das Modell auf den Kalibrierdaten ausführen und je Schicht die Gram-Matrix der Eingaben, Wertebereiche und Stichprobenzeilen sowie den K/V-Cache behalten: eine Aufzeichnung, mit dem Checkpoint gekoppelt</translation>
    </message>
</context>
<context>
    <name>quantscope::MoeBarsPlot</name>
    <message>
        <source>time per step (µs)</source>
        <translation>Zeit pro Schritt (µs)</translation>
    </message>
    <message>
        <source>one launch per expert</source>
        <translation>ein Aufruf pro Experte</translation>
    </message>
    <message>
        <source>one strided-batched launch</source>
        <translation>ein Strided-Batched-Aufruf</translation>
    </message>
    <message>
        <source>%1
%2 experts</source>
        <translation>%1
%2 Experten</translation>
    </message>
    <message>
        <source>%1, %2: %3 µs per step</source>
        <translation>%1, %2: %3 µs pro Schritt</translation>
    </message>
</context>
<context>
    <name>quantscope::NumbersModel</name>
    <message>
        <source>yes</source>
        <translation>ja</translation>
    </message>
    <message>
        <source>no</source>
        <translation>nein</translation>
    </message>
    <message>
        <source>This run failed: %1</source>
        <translation>Dieser Lauf ist fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>%1
%2 = %3</source>
        <translation>%1
%2 = %3</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>Configuration %1 on %2
%3</source>
        <translation>Konfiguration %1 auf %2
%3</translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>Fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Relative error ‖W−Ŵ‖/‖W‖</source>
        <translation>Relativer Fehler ‖W−Ŵ‖/‖W‖</translation>
    </message>
    <message>
        <source>SQNR (dB)</source>
        <translation>SQNR (dB)</translation>
    </message>
    <message>
        <source>MSE</source>
        <translation>MSE</translation>
    </message>
    <message>
        <source>RMSE</source>
        <translation>RMSE</translation>
    </message>
    <message>
        <source>Max |error|</source>
        <translation>Max. |Fehler|</translation>
    </message>
    <message>
        <source>Cosine similarity</source>
        <translation>Kosinus-Ähnlichkeit</translation>
    </message>
    <message>
        <source>|error| p50</source>
        <translation>|Fehler| p50</translation>
    </message>
    <message>
        <source>|error| p90</source>
        <translation>|Fehler| p90</translation>
    </message>
    <message>
        <source>|error| p99</source>
        <translation>|Fehler| p99</translation>
    </message>
    <message>
        <source>|error| p99.9</source>
        <translation>|Fehler| p99,9</translation>
    </message>
    <message>
        <source>Histogram overlap</source>
        <translation>Histogramm-Überlappung</translation>
    </message>
    <message>
        <source>Bits per element</source>
        <translation>Bit pro Element</translation>
    </message>
    <message>
        <source>Stored bytes</source>
        <translation>Gespeicherte Bytes</translation>
    </message>
    <message>
        <source>Ragged groups</source>
        <translation>Unvollständige Gruppen</translation>
    </message>
    <message>
        <source>Non-finite groups</source>
        <translation>Nicht-endliche Gruppen</translation>
    </message>
    <message>
        <source>W min</source>
        <translation>W Minimum</translation>
    </message>
    <message>
        <source>W max</source>
        <translation>W Maximum</translation>
    </message>
    <message>
        <source>W mean</source>
        <translation>W Mittelwert</translation>
    </message>
    <message>
        <source>W std</source>
        <translation>W Standardabweichung</translation>
    </message>
    <message>
        <source>W skewness</source>
        <translation>W Schiefe</translation>
    </message>
    <message>
        <source>W excess kurtosis</source>
        <translation>W Exzess-Kurtosis</translation>
    </message>
    <message>
        <source>W NaN count</source>
        <translation>W Anzahl NaN</translation>
    </message>
    <message>
        <source>W Inf count</source>
        <translation>W Anzahl Inf</translation>
    </message>
    <message>
        <source>Ŵ min</source>
        <translation>Ŵ Minimum</translation>
    </message>
    <message>
        <source>Ŵ max</source>
        <translation>Ŵ Maximum</translation>
    </message>
    <message>
        <source>Ŵ mean</source>
        <translation>Ŵ Mittelwert</translation>
    </message>
    <message>
        <source>Ŵ std</source>
        <translation>Ŵ Standardabweichung</translation>
    </message>
    <message>
        <source>Ŵ skewness</source>
        <translation>Ŵ Schiefe</translation>
    </message>
    <message>
        <source>Ŵ excess kurtosis</source>
        <translation>Ŵ Exzess-Kurtosis</translation>
    </message>
    <message>
        <source>Ŵ NaN count</source>
        <translation>Ŵ Anzahl NaN</translation>
    </message>
    <message>
        <source>Ŵ Inf count</source>
        <translation>Ŵ Anzahl Inf</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>Gerät</translation>
    </message>
    <message>
        <source>Time (ms)</source>
        <translation>Zeit (ms)</translation>
    </message>
    <message>
        <source>Size of the whole error relative to the size of the tensor; 0.01 = 1 %</source>
        <translation>Größe des gesamten Fehlers relativ zur Größe des Tensors; 0,01 = 1 %</translation>
    </message>
    <message>
        <source>Signal-to-quantization-noise ratio, 10·log10(Σw²/Σ(w−ŵ)²); +6 dB ≈ one more bit</source>
        <translation>Signal-Quantisierungsrausch-Verhältnis, 10·log10(Σw²/Σ(w−ŵ)²); +6 dB ≈ ein Bit mehr</translation>
    </message>
    <message>
        <source>Mean of the squared error (w−ŵ)²</source>
        <translation>Mittelwert des quadrierten Fehlers (w−ŵ)²</translation>
    </message>
    <message>
        <source>Square root of the MSE, in the tensor&apos;s units</source>
        <translation>Wurzel aus dem MSE, in den Einheiten des Tensors</translation>
    </message>
    <message>
        <source>Largest error of any single element (often an outlier or a clipped value)</source>
        <translation>Größter Fehler eines einzelnen Elements (oft ein Ausreißer oder ein abgeschnittener Wert)</translation>
    </message>
    <message>
        <source>Cosine of the angle between W and Ŵ as vectors; 1 = same direction</source>
        <translation>Kosinus des Winkels zwischen W und Ŵ als Vektoren; 1 = gleiche Richtung</translation>
    </message>
    <message>
        <source>Half of the elements have a smaller |error|</source>
        <translation>Die Hälfte der Elemente hat einen kleineren |Fehler|</translation>
    </message>
    <message>
        <source>90 % of the elements have a smaller |error|</source>
        <translation>90 % der Elemente haben einen kleineren |Fehler|</translation>
    </message>
    <message>
        <source>99 % of the elements have a smaller |error|</source>
        <translation>99 % der Elemente haben einen kleineren |Fehler|</translation>
    </message>
    <message>
        <source>99.9 % of the elements have a smaller |error|: the tail</source>
        <translation>99,9 % der Elemente haben einen kleineren |Fehler|: der Rand</translation>
    </message>
    <message>
        <source>Shared area of the W and Ŵ histograms; 1 = same distribution of values</source>
        <translation>Gemeinsame Fläche der Histogramme von W und Ŵ; 1 = gleiche Werteverteilung</translation>
    </message>
    <message>
        <source>Stored bits per weight, codes plus scales and zero points</source>
        <translation>Gespeicherte Bit pro Gewicht, Codes samt Skalen und Nullpunkten</translation>
    </message>
    <message>
        <source>Bytes the quantized tensor takes: codes, scales and zero points</source>
        <translation>Bytes, die der quantisierte Tensor belegt: Codes, Skalen und Nullpunkte</translation>
    </message>
    <message>
        <source>Whether the last group or block is shorter than the others</source>
        <translation>Ob die letzte Gruppe oder der letzte Block kürzer ist als die anderen</translation>
    </message>
    <message>
        <source>Groups with a NaN or Inf input, coded as 0</source>
        <translation>Gruppen mit NaN- oder Inf-Eingabe, als 0 codiert</translation>
    </message>
    <message>
        <source>Smallest finite value of W</source>
        <translation>Kleinster endlicher Wert von W</translation>
    </message>
    <message>
        <source>Largest finite value of W</source>
        <translation>Größter endlicher Wert von W</translation>
    </message>
    <message>
        <source>Mean of W</source>
        <translation>Mittelwert von W</translation>
    </message>
    <message>
        <source>Standard deviation of W (population)</source>
        <translation>Standardabweichung von W (Grundgesamtheit)</translation>
    </message>
    <message>
        <source>Asymmetry of W&apos;s distribution; 0 = symmetric</source>
        <translation>Asymmetrie der Verteilung von W; 0 = symmetrisch</translation>
    </message>
    <message>
        <source>Heaviness of W&apos;s tails; 0 = Gaussian, large = outliers that stretch the scales</source>
        <translation>Schwere der Ränder von W; 0 = gaußsch, groß = Ausreißer, die die Skalen dehnen</translation>
    </message>
    <message>
        <source>Elements of W that are NaN</source>
        <translation>Elemente von W, die NaN sind</translation>
    </message>
    <message>
        <source>Elements of W that are ±Inf</source>
        <translation>Elemente von W, die ±Inf sind</translation>
    </message>
    <message>
        <source>Smallest value of Ŵ</source>
        <translation>Kleinster Wert von Ŵ</translation>
    </message>
    <message>
        <source>Largest value of Ŵ</source>
        <translation>Größter Wert von Ŵ</translation>
    </message>
    <message>
        <source>Mean of Ŵ; a shift from W&apos;s mean is a bias</source>
        <translation>Mittelwert von Ŵ; eine Verschiebung gegenüber dem Mittelwert von W ist ein systematischer Fehler</translation>
    </message>
    <message>
        <source>Standard deviation of Ŵ</source>
        <translation>Standardabweichung von Ŵ</translation>
    </message>
    <message>
        <source>Asymmetry of Ŵ&apos;s distribution</source>
        <translation>Asymmetrie der Verteilung von Ŵ</translation>
    </message>
    <message>
        <source>Heaviness of Ŵ&apos;s tails</source>
        <translation>Schwere der Ränder von Ŵ</translation>
    </message>
    <message>
        <source>Elements of Ŵ that are NaN</source>
        <translation>Elemente von Ŵ, die NaN sind</translation>
    </message>
    <message>
        <source>Elements of Ŵ that are ±Inf</source>
        <translation>Elemente von Ŵ, die ±Inf sind</translation>
    </message>
    <message>
        <source>The device that ran the quantizer and the metrics</source>
        <translation>Das Gerät, auf dem Quantisierer und Kennzahlen liefen</translation>
    </message>
    <message>
        <source>Wall-clock time of quantizing and measuring</source>
        <translation>Gemessene Zeit für Quantisieren und Messen</translation>
    </message>
    <message numerus="yes">
        <source>E‖(W − Ŵ)x‖² on the paired capture&apos;s inputs (%n tokens, %1 Gram)
%2 = %3</source>
        <translation>
            <numerusform>E‖(W − Ŵ)x‖² auf den Eingaben der gekoppelten Aufzeichnung (%n Token, %1 Gram-Matrix)
%2 = %3</numerusform>
            <numerusform>E‖(W − Ŵ)x‖² auf den Eingaben der gekoppelten Aufzeichnung (%n Tokens, %1 Gram-Matrix)
%2 = %3</numerusform>
        </translation>
    </message>
    <message>
        <source>diagonal</source>
        <translation>diagonale</translation>
    </message>
    <message>
        <source>full</source>
        <translation>volle</translation>
    </message>
    <message>
        <source>Output-aware error E‖(W−Ŵ)x‖²</source>
        <translation>Ausgabebezogener Fehler E‖(W−Ŵ)x‖²</translation>
    </message>
    <message>
        <source>Relative output-aware error</source>
        <translation>Relativer ausgabebezogener Fehler</translation>
    </message>
    <message>
        <source>E‖(W − Ŵ)x‖² on the paired capture&apos;s inputs: what the error does to the layer&apos;s output, summed over output channels</source>
        <translation>E‖(W − Ŵ)x‖² auf den Eingaben der gekoppelten Aufzeichnung: was der Fehler mit der Ausgabe der Schicht macht, summiert über die Ausgangskanäle</translation>
    </message>
    <message>
        <source>E‖(W − Ŵ)x‖² / E‖Wx‖² on the paired capture&apos;s inputs; 0.01 = 1 % of the output&apos;s energy</source>
        <translation>E‖(W − Ŵ)x‖² / E‖Wx‖² auf den Eingaben der gekoppelten Aufzeichnung; 0,01 = 1 % der Energie der Ausgabe</translation>
    </message>
    <message>
        <source>%1 (stale)</source>
        <translation>%1 (veraltet)</translation>
    </message>
    <message>
        <source>Stale: the configuration was edited after this run; run again to update.</source>
        <translation>Veraltet: die Konfiguration wurde nach diesem Lauf geändert; zum Aktualisieren erneut ausführen.</translation>
    </message>
</context>
<context>
    <name>quantscope::NumbersView</name>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <source>Could not write “%1”: %2</source>
        <translation>„%1“ konnte nicht geschrieben werden: %2</translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation>&amp;Kopieren</translation>
    </message>
    <message>
        <source>Copy the selected cells (all when none is selected) as tab-separated text at full precision</source>
        <translation>Die ausgewählten Zellen (alle, wenn keine ausgewählt ist) als tabulatorgetrennten Text in voller Genauigkeit kopieren</translation>
    </message>
    <message>
        <source>Export C&amp;SV…</source>
        <translation>C&amp;SV exportieren…</translation>
    </message>
    <message>
        <source>Export &amp;JSON…</source>
        <translation>&amp;JSON exportieren…</translation>
    </message>
    <message>
        <source>The same keys as quantscope-cli quantize --json</source>
        <translation>Dieselben Schlüssel wie quantscope-cli quantize --json</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>Kopieren</translation>
    </message>
    <message>
        <source>Export Numbers as JSON</source>
        <translation>Zahlen als JSON exportieren</translation>
    </message>
    <message>
        <source>Export Numbers as CSV</source>
        <translation>Zahlen als CSV exportieren</translation>
    </message>
    <message>
        <source>JSON files (*.json)</source>
        <translation>JSON-Dateien (*.json)</translation>
    </message>
    <message>
        <source>CSV tables (*.csv)</source>
        <translation>CSV-Tabellen (*.csv)</translation>
    </message>
    <message>
        <source>Export Failed</source>
        <translation>Export fehlgeschlagen</translation>
    </message>
</context>
<context>
    <name>quantscope::OverviewModel</name>
    <message>
        <source>failed</source>
        <translation>fehlgeschlagen</translation>
    </message>
    <message>
        <source>This run failed: %1</source>
        <translation>Dieser Lauf ist fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>%1 on %2</source>
        <translation>%1 auf %2</translation>
    </message>
    <message>
        <source>Tensor</source>
        <translation>Tensorname</translation>
    </message>
    <message>
        <source>Configuration</source>
        <translation>Konfiguration</translation>
    </message>
    <message numerus="yes">
        <source>E‖(W − Ŵ)x‖² on the paired capture&apos;s inputs (%n tokens)</source>
        <translation>
            <numerusform>E‖(W − Ŵ)x‖² auf den Eingaben der gekoppelten Aufzeichnung (%n Token)</numerusform>
            <numerusform>E‖(W − Ŵ)x‖² auf den Eingaben der gekoppelten Aufzeichnung (%n Tokens)</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 (stale)</source>
        <translation>%1 (veraltet)</translation>
    </message>
    <message>
        <source>Stale: the configuration was edited after this run; run again to update.</source>
        <translation>Veraltet: die Konfiguration wurde nach diesem Lauf geändert; zum Aktualisieren erneut ausführen.</translation>
    </message>
</context>
<context>
    <name>quantscope::OverviewView</name>
    <message>
        <source>Export C&amp;SV…</source>
        <translation>C&amp;SV exportieren…</translation>
    </message>
    <message numerus="yes">
        <source>%n tensor(s)</source>
        <translation>
            <numerusform>%n Tensor</numerusform>
            <numerusform>%n Tensoren</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source> × %n configuration(s)</source>
        <translation>
            <numerusform> × %n Konfiguration</numerusform>
            <numerusform> × %n Konfigurationen</numerusform>
        </translation>
    </message>
    <message>
        <source>partial batch: cancelled, the finished runs are shown</source>
        <translation>Teilstapel: abgebrochen, die fertigen Läufe werden gezeigt</translation>
    </message>
    <message>
        <source>Could not write “%1”: %2</source>
        <translation>„%1“ konnte nicht geschrieben werden: %2</translation>
    </message>
    <message>
        <source>Export Overview as CSV</source>
        <translation>Übersicht als CSV exportieren</translation>
    </message>
    <message>
        <source>CSV tables (*.csv)</source>
        <translation>CSV-Tabellen (*.csv)</translation>
    </message>
    <message>
        <source>Export Failed</source>
        <translation>Export fehlgeschlagen</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) on tensors too small for their group or block: not comparable, not tinted (see the tooltip)</source>
        <translation>
            <numerusform>%n Lauf auf einem Tensor, der für seine Gruppe oder seinen Block zu klein ist: nicht vergleichbar, nicht eingefärbt (siehe Tooltip)</numerusform>
            <numerusform>%n Läufe auf Tensoren, die für ihre Gruppe oder ihren Block zu klein sind: nicht vergleichbar, nicht eingefärbt (siehe Tooltip)</numerusform>
        </translation>
    </message>
    <message>
        <source>No results yet: select tensors in the Tensors dock and press Run (Ctrl+R) to compare every tensor and configuration here.</source>
        <translation>Noch keine Ergebnisse: Tensoren im Tensoren-Dock auswählen und „Ausführen“ (Strg+R) drücken, um hier jeden Tensor und jede Konfiguration zu vergleichen.</translation>
    </message>
</context>
<context>
    <name>quantscope::ParetoPlot</name>
    <message>
        <source>bits per weight</source>
        <translation>Bit pro Gewicht</translation>
    </message>
    <message>
        <source>size (MB)</source>
        <translation>Größe (MB)</translation>
    </message>
    <message>
        <source>mean squared error</source>
        <translation>mittlerer quadratischer Fehler</translation>
    </message>
    <message>
        <source>total squared error</source>
        <translation>quadratischer Gesamtfehler</translation>
    </message>
    <message>
        <source>current configuration</source>
        <translation>aktuelle Konfiguration</translation>
    </message>
    <message>
        <source>chosen budget</source>
        <translation>gewähltes Budget</translation>
    </message>
    <message>
        <source>%1: %2 bits per weight, mse %3</source>
        <translation>%1: %2 Bit pro Gewicht, MSE %3</translation>
    </message>
    <message>
        <source>%1 MB: total error %2</source>
        <translation>%1 MB: Gesamtfehler %2</translation>
    </message>
</context>
<context>
    <name>quantscope::PlanController</name>
    <message>
        <source>&amp;Recipe</source>
        <translation>&amp;Rezept</translation>
    </message>
    <message>
        <source>The recipe&apos;s rules with undo, checked live against the opened checkpoint</source>
        <translation>Die Regeln des Rezepts mit Rückgängig, live gegen den geöffneten Checkpoint geprüft</translation>
    </message>
    <message>
        <source>&amp;Budget</source>
        <translation>&amp;Bitbudget</translation>
    </message>
    <message>
        <source>One configuration per module under a size budget; the format sweep of a tensor</source>
        <translation>Eine Konfiguration je Modul unter einem Größenbudget; der Formatdurchlauf eines Tensors</translation>
    </message>
    <message>
        <source>Sweeping %1…</source>
        <translation>Durchlaufe %1…</translation>
    </message>
    <message>
        <source>The sweep failed: %1</source>
        <translation>Der Durchlauf ist fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Budget for %1</source>
        <translation>Bitbudget für %1</translation>
    </message>
    <message>
        <source>Format sweep of %1</source>
        <translation>Formatdurchlauf von %1</translation>
    </message>
    <message>
        <source>Budget for any target</source>
        <translation>Bitbudget für beliebiges Ziel</translation>
    </message>
</context>
<context>
    <name>quantscope::PlotWidget</name>
    <message>
        <source>Could not write “%1”.</source>
        <translation>„%1“ konnte nicht geschrieben werden.</translation>
    </message>
    <message>
        <source>Export as &amp;PNG…</source>
        <translation>Als &amp;PNG exportieren…</translation>
    </message>
    <message>
        <source>Export as &amp;SVG…</source>
        <translation>Als &amp;SVG exportieren…</translation>
    </message>
    <message>
        <source>Export as P&amp;DF…</source>
        <translation>Als P&amp;DF exportieren…</translation>
    </message>
    <message>
        <source>Export Data as &amp;CSV…</source>
        <translation>Daten als &amp;CSV exportieren…</translation>
    </message>
    <message>
        <source>&amp;Reset Zoom</source>
        <translation>&amp;Zoom zurücksetzen</translation>
    </message>
    <message>
        <source>PNG images (*.png)</source>
        <translation>PNG-Bilder (*.png)</translation>
    </message>
    <message>
        <source>SVG drawings (*.svg)</source>
        <translation>SVG-Zeichnungen (*.svg)</translation>
    </message>
    <message>
        <source>PDF documents (*.pdf)</source>
        <translation>PDF-Dokumente (*.pdf)</translation>
    </message>
    <message>
        <source>CSV tables (*.csv)</source>
        <translation>CSV-Tabellen (*.csv)</translation>
    </message>
    <message>
        <source>Export Plot</source>
        <translation>Diagramm exportieren</translation>
    </message>
    <message>
        <source>%1 (stale)</source>
        <translation>%1 (veraltet)</translation>
    </message>
</context>
<context>
    <name>quantscope::ProxyScatterPlot</name>
    <message>
        <source>output-aware error E‖(W − Ŵ)x‖²</source>
        <translation>ausgabebezogener Fehler E‖(W − Ŵ)x‖²</translation>
    </message>
    <message>
        <source>KL with the module alone quantized (nats/token)</source>
        <translation>KL bei allein quantisiertem Modul (nat/Token)</translation>
    </message>
    <message>
        <source>modules</source>
        <translation>Module</translation>
    </message>
    <message>
        <source>%1 (%2)
output-aware error %3 (relative %4)
weight error ‖W − Ŵ‖/‖W‖ %5
KL %6, top-1 %7</source>
        <translation>%1 (%2)
ausgabebezogener Fehler %3 (relativ %4)
Gewichtsfehler ‖W − Ŵ‖/‖W‖ %5
KL %6, Top-1 %7</translation>
    </message>
</context>
<context>
    <name>quantscope::QuantizerPanel</name>
    <message>
        <source>Auto</source>
        <translation>Automatisch</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Auto uses the GPU when there is one and it has the method, else the CPU. Both give the same codes.</source>
        <translation>Automatisch nimmt die GPU, wenn es eine gibt und sie das Verfahren kann, sonst die CPU. Beide liefern dieselben Codes.</translation>
    </message>
    <message>
        <source>&amp;Device:</source>
        <translation>&amp;Gerät:</translation>
    </message>
    <message>
        <source>Histogram bins over W&apos;s range (the overlap depends on it)</source>
        <translation>Histogrammklassen über den Wertebereich von W (die Überlappung hängt davon ab)</translation>
    </message>
    <message>
        <source>s&amp;ymlog x</source>
        <translation>s&amp;ymlog-x</translation>
    </message>
    <message>
        <source>Bin on sign(x)·log10(1 + |x|/t), t = 10⁻³·max|W|: shows the tails and the values near zero at once</source>
        <translation>Klassen über sign(x)·log10(1 + |x|/t), t = 10⁻³·max|W|: zeigt die Ränder und die Werte nahe null zugleich</translation>
    </message>
    <message>
        <source>&amp;Bins:</source>
        <translation>&amp;Klassen:</translation>
    </message>
    <message>
        <source>Unpair</source>
        <translation>Entkoppeln</translation>
    </message>
    <message>
        <source>Stop pairing the activation with the weights</source>
        <translation>Die Aktivierung nicht mehr mit den Gewichten koppeln</translation>
    </message>
    <message>
        <source>Activation:</source>
        <translation>Aktivierung:</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>&amp;Ausführen</translation>
    </message>
    <message>
        <source>Quantize the selected tensors with every configuration (Ctrl+R)</source>
        <translation>Die ausgewählten Tensoren mit jeder Konfiguration quantisieren (Strg+R)</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Configuration %1: this Quantscope has no method “%2”</source>
        <translation>Konfiguration %1: dieses Quantscope kennt das Verfahren „%2“ nicht</translation>
    </message>
    <message>
        <source>⚠ %1</source>
        <translation>⚠ %1</translation>
    </message>
    <message>
        <source>+ Add</source>
        <translation>+ Hinzufügen</translation>
    </message>
    <message>
        <source>none (right-click a tensor to pair one)</source>
        <translation>keine (Rechtsklick auf einen Tensor, um ihn zu koppeln)</translation>
    </message>
    <message>
        <source>%1 from %2</source>
        <translation>%1 aus %2</translation>
    </message>
    <message>
        <source>Compare another configuration (up to %1): a copy of the one being edited</source>
        <translation>Eine weitere Konfiguration vergleichen (bis zu %1): eine Kopie der gerade bearbeiteten</translation>
    </message>
    <message>
        <source>Add a preset…</source>
        <translation>Vorlage hinzufügen…</translation>
    </message>
    <message>
        <source>Add a configuration as a toolkit quantizes (its spec in each item&apos;s tooltip)</source>
        <translation>Eine Konfiguration hinzufügen, die quantisiert wie ein Toolkit (ihre Spezifikation im Tooltip jedes Eintrags)</translation>
    </message>
    <message>
        <source>%1 bits/weight</source>
        <translation>%1 Bit/Gewicht</translation>
    </message>
    <message>
        <source>Its colour in every plot</source>
        <translation>Ihre Farbe in jedem Diagramm</translation>
    </message>
    <message>
        <source>Bits per weight on a 256 × 1024 reference weight (codes, scales, zero points and compensators)</source>
        <translation>Bit pro Gewicht auf einem 256 × 1024-Referenzgewicht (Codes, Skalen, Nullpunkte und Kompensatoren)</translation>
    </message>
    <message>
        <source>Move up (its colour follows the position)</source>
        <translation>Nach oben (die Farbe folgt der Position)</translation>
    </message>
    <message>
        <source>Move down (its colour follows the position)</source>
        <translation>Nach unten (die Farbe folgt der Position)</translation>
    </message>
    <message>
        <source>Duplicate</source>
        <translation>Duplizieren</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>Entfernen</translation>
    </message>
    <message>
        <source>%1 (%2): click to edit</source>
        <translation>%1 (%2): zum Bearbeiten klicken</translation>
    </message>
    <message>
        <source>The configuration&apos;s label in the plots, tables and the report</source>
        <translation>Die Bezeichnung der Konfiguration in Diagrammen, Tabellen und im Bericht</translation>
    </message>
    <message>
        <source>&amp;Label:</source>
        <translation>&amp;Bezeichnung:</translation>
    </message>
    <message>
        <source>&amp;Method:</source>
        <translation>&amp;Methode:</translation>
    </message>
</context>
<context>
    <name>quantscope::RankCurvePlot</name>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
</context>
<context>
    <name>quantscope::RecentFilesMenu</name>
    <message>
        <source>Not found</source>
        <translation>Nicht gefunden</translation>
    </message>
    <message>
        <source>%1 (missing)</source>
        <translation>%1 (fehlt)</translation>
    </message>
    <message>
        <source>No Recent Files</source>
        <translation>Keine zuletzt geöffneten Dateien</translation>
    </message>
    <message>
        <source>&amp;Clear List</source>
        <translation>Liste &amp;leeren</translation>
    </message>
</context>
<context>
    <name>quantscope::RecipeEditor</name>
    <message>
        <source>Name</source>
        <translation>Bezeichnung</translation>
    </message>
    <message>
        <source>Dialect</source>
        <translation>Dialekt</translation>
    </message>
    <message>
        <source>Patterns</source>
        <translation>Muster</translation>
    </message>
    <message>
        <source>Specs</source>
        <translation>Spezifikationen</translation>
    </message>
    <message>
        <source>Wins</source>
        <translation>Gewinnt</translation>
    </message>
    <message>
        <source>Loses to earlier</source>
        <translation>Verliert an frühere</translation>
    </message>
    <message>
        <source>Add rule</source>
        <translation>Regel hinzufügen</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>Entfernen</translation>
    </message>
    <message>
        <source>Up</source>
        <translation>Hoch</translation>
    </message>
    <message>
        <source>Down</source>
        <translation>Runter</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>Rückgängig</translation>
    </message>
    <message>
        <source>Redo</source>
        <translation>Wiederholen</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>Exportieren…</translation>
    </message>
    <message>
        <source>Replace the recipe</source>
        <translation>Rezept ersetzen</translation>
    </message>
    <message>
        <source>Add a rule</source>
        <translation>Regel hinzufügen</translation>
    </message>
    <message>
        <source>Remove a rule</source>
        <translation>Regel entfernen</translation>
    </message>
    <message>
        <source>Move a rule</source>
        <translation>Regel verschieben</translation>
    </message>
    <message>
        <source>Rename a rule</source>
        <translation>Regel umbenennen</translation>
    </message>
    <message>
        <source>Change a dialect</source>
        <translation>Dialekt ändern</translation>
    </message>
    <message>
        <source>Edit patterns</source>
        <translation>Muster bearbeiten</translation>
    </message>
    <message>
        <source>Edit specs</source>
        <translation>Spezifikationen bearbeiten</translation>
    </message>
    <message>
        <source>%1 of %2 modules matched, %3 unmatched, %4 excluded, %5 overlaps</source>
        <translation>%1 von %2 Modulen getroffen, %3 ohne Regel, %4 ausgeschlossen, %5 Überschneidungen</translation>
    </message>
    <message>
        <source>Fusion group %1: %2</source>
        <translation>Fusionsgruppe %1: %2</translation>
    </message>
    <message>
        <source>Modules no rule quantizes: an exclusion wins over every rule</source>
        <translation>Module, die keine Regel quantisiert: ein Ausschluss hat Vorrang vor jeder Regel</translation>
    </message>
    <message>
        <source>Exclude modules…</source>
        <translation>Module ausschließen…</translation>
    </message>
    <message>
        <source>Pick modules of the opened checkpoint to leave unquantized</source>
        <translation>Module des geöffneten Checkpoints wählen, die unquantisiert bleiben</translation>
    </message>
    <message>
        <source>Remove exclusion</source>
        <translation>Ausschluss entfernen</translation>
    </message>
    <message>
        <source>Excluded:</source>
        <translation>Ausgeschlossen:</translation>
    </message>
    <message numerus="yes">
        <source>Exclude %n module(s)</source>
        <translation>
            <numerusform>%n Modul ausschließen</numerusform>
            <numerusform>%n Module ausschließen</numerusform>
        </translation>
    </message>
    <message>
        <source>Remove an exclusion</source>
        <translation>Einen Ausschluss entfernen</translation>
    </message>
    <message>
        <source>Exclude Modules</source>
        <translation>Module ausschließen</translation>
    </message>
    <message>
        <source>Filter modules by name</source>
        <translation>Module nach Namen filtern</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>Pattern %1, dialect %2</source>
        <translation>Muster %1, Dialekt %2</translation>
    </message>
    <message>
        <source>Add spec</source>
        <translation>Hinzufügen</translation>
    </message>
    <message>
        <source>Another spec for this rule: an exporter takes the first one its format can store</source>
        <translation>Eine weitere Spezifikation für diese Regel: ein Exporter nimmt die erste, die sein Format speichern kann</translation>
    </message>
    <message>
        <source>Remove spec</source>
        <translation>Entfernen</translation>
    </message>
    <message>
        <source>Edit a spec</source>
        <translation>Eine Spezifikation bearbeiten</translation>
    </message>
    <message>
        <source>Add a spec</source>
        <translation>Eine Spezifikation hinzufügen</translation>
    </message>
    <message>
        <source>Remove a spec</source>
        <translation>Eine Spezifikation entfernen</translation>
    </message>
    <message>
        <source>Select a rule to edit its spec.</source>
        <translation>Eine Regel auswählen, um ihre Spezifikation zu bearbeiten.</translation>
    </message>
    <message>
        <source>Spec of rule “%1”:</source>
        <translation>Spezifikation der Regel „%1“:</translation>
    </message>
    <message>
        <source>Spec %1 of %2</source>
        <translation>Spezifikation %1 von %2</translation>
    </message>
</context>
<context>
    <name>quantscope::RooflinePlot</name>
    <message>
        <source>arithmetic intensity (FLOP/byte)</source>
        <translation>arithmetische Intensität (FLOP/Byte)</translation>
    </message>
    <message>
        <source>TFLOP/s</source>
        <translation>TFLOP/s</translation>
    </message>
    <message>
        <source>memory</source>
        <translation>Speicher</translation>
    </message>
    <message>
        <source>compute</source>
        <translation>Rechenwerk</translation>
    </message>
    <message>
        <source>%1 ceiling</source>
        <translation>Grenze %1</translation>
    </message>
    <message>
        <source>%1, M %2: %3 FLOP/byte, %4 TFLOP/s (%5 of the ceiling)</source>
        <translation>%1, M %2: %3 FLOP/Byte, %4 TFLOP/s (%5 der Grenze)</translation>
    </message>
    <message>
        <source>run to run: %1 to %2 TFLOP/s (the slowest and the fastest timed run)</source>
        <translation>von Lauf zu Lauf: %1 bis %2 TFLOP/s (der langsamste und der schnellste gemessene Lauf)</translation>
    </message>
</context>
<context>
    <name>quantscope::ScaleConstantPlot</name>
    <message>
        <source>scale constant c</source>
        <translation>Skalierungskonstante c</translation>
    </message>
    <message>
        <source>MSE</source>
        <translation>MSE</translation>
    </message>
    <message>
        <source>constOpt pow2 (UE8M0 scale)</source>
        <translation>constOpt pow2 (UE8M0-Skala)</translation>
    </message>
    <message>
        <source>constOpt unrounded (FP32 scale)</source>
        <translation>constOpt ungerundet (FP32-Skala)</translation>
    </message>
    <message>
        <source>c* pow2 %1</source>
        <translation>c* pow2 %1</translation>
    </message>
    <message>
        <source>c* unrounded %1</source>
        <translation>c* ungerundet %1</translation>
    </message>
    <message>
        <source>INT4 sym, same groups</source>
        <translation>INT4 sym, gleiche Gruppen</translation>
    </message>
    <message>
        <source>MXFP4</source>
        <translation>MXFP4</translation>
    </message>
    <message>
        <source>Lloyd–Max 16 levels</source>
        <translation>Lloyd–Max, 16 Stufen</translation>
    </message>
    <message>
        <source> default %1</source>
        <translation> Standard %1</translation>
    </message>
    <message>
        <source>c %1: MSE pow2 %2, unrounded %3</source>
        <translation>c %1: MSE pow2 %2, ungerundet %3</translation>
    </message>
    <message>
        <source>INT4 %1, MXFP4 %2, Lloyd–Max %3</source>
        <translation>INT4 %1, MXFP4 %2, Lloyd–Max %3</translation>
    </message>
    <message>
        <source>Click to set c in the configuration</source>
        <translation>Klicken, um c in der Konfiguration zu setzen</translation>
    </message>
</context>
<context>
    <name>quantscope::ScaleConstantView</name>
    <message>
        <source>The tensor whose MSE(c) is swept (one of the selected tensors)</source>
        <translation>Der Tensor, dessen MSE(c) durchlaufen wird (einer der ausgewählten)</translation>
    </message>
    <message>
        <source>The constOpt configuration a click on the curve sets c in</source>
        <translation>Die constOpt-Konfiguration, deren c ein Klick auf die Kurve setzt</translation>
    </message>
    <message>
        <source>Hadamard rotation, block</source>
        <translation>Hadamard-Rotation, Block</translation>
    </message>
    <message>
        <source>Show MSE(c) of the rotated tensor (both are computed)</source>
        <translation>MSE(c) des rotierten Tensors zeigen (beides wird berechnet)</translation>
    </message>
    <message>
        <source>Sweep c</source>
        <translation>c durchlaufen</translation>
    </message>
    <message>
        <source>(a click adds a constOpt configuration)</source>
        <translation>(ein Klick fügt eine constOpt-Konfiguration hinzu)</translation>
    </message>
    <message>
        <source>Select a tensor in the Tensors dock.</source>
        <translation>Wählen Sie einen Tensor im Tensoren-Dock.</translation>
    </message>
    <message>
        <source>Sweeping c on %1</source>
        <translation>c wird für %1 durchlaufen</translation>
    </message>
    <message>
        <source>Select a tensor and press Sweep c: constOpt&apos;s MSE for every c.</source>
        <translation>Tensor wählen und „c durchlaufen“ drücken: die MSE von constOpt für jedes c.</translation>
    </message>
    <message>
        <source>%1, groups of %2%3: c* pow2 %4 (flat %5–%6), unrounded %7; MSE at c* %8 / %9, at %10 %11 / %12; INT4 %13, MXFP4 %14, Lloyd–Max %15</source>
        <translation>%1, Gruppen zu %2%3: c* pow2 %4 (flach %5–%6), ungerundet %7; MSE bei c* %8 / %9, bei %10 %11 / %12; INT4 %13, MXFP4 %14, Lloyd–Max %15</translation>
    </message>
    <message>
        <source>, rotated (block %1)</source>
        <translation>, rotiert (Block %1)</translation>
    </message>
    <message>
        <source>No rotated sweep: %1</source>
        <translation>Kein rotierter Durchlauf: %1</translation>
    </message>
</context>
<context>
    <name>quantscope::ScanController</name>
    <message>
        <source>&amp;Layers</source>
        <translation>&amp;Schichten</translation>
    </message>
    <message>
        <source>Every layer&apos;s error at a glance: scan the whole checkpoint</source>
        <translation>Der Fehler jeder Schicht auf einen Blick: den ganzen Checkpoint scannen</translation>
    </message>
    <message>
        <source>Cancelled; the next scan resumes here</source>
        <translation>Abgebrochen; der nächste Scan setzt hier fort</translation>
    </message>
    <message>
        <source>Scan finished</source>
        <translation>Scan abgeschlossen</translation>
    </message>
    <message>
        <source>The scan failed: %1</source>
        <translation>Der Scan ist fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Scan of %1</source>
        <translation>Scan von %1</translation>
    </message>
</context>
<context>
    <name>quantscope::SessionController</name>
    <message>
        <source>Could not save the session “%1”: %2</source>
        <translation>Die Sitzung „%1“ konnte nicht gespeichert werden: %2</translation>
    </message>
    <message>
        <source>Could Not Save Session</source>
        <translation>Sitzung konnte nicht gespeichert werden</translation>
    </message>
    <message>
        <source>Quantscope could not save “%1”.</source>
        <translation>Quantscope konnte „%1“ nicht speichern.</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>%1 gespeichert</translation>
    </message>
    <message>
        <source>Saved the session %1</source>
        <translation>Sitzung %1 gespeichert</translation>
    </message>
    <message>
        <source>not valid JSON (%1)</source>
        <translation>kein gültiges JSON (%1)</translation>
    </message>
    <message>
        <source>Could not open the session “%1”: %2</source>
        <translation>Die Sitzung „%1“ konnte nicht geöffnet werden: %2</translation>
    </message>
    <message>
        <source>Could Not Open Session</source>
        <translation>Sitzung konnte nicht geöffnet werden</translation>
    </message>
    <message>
        <source>Quantscope could not open the session “%1”.</source>
        <translation>Quantscope konnte die Sitzung „%1“ nicht öffnen.</translation>
    </message>
    <message>
        <source>Opened the session %1</source>
        <translation>Sitzung %1 geöffnet</translation>
    </message>
</context>
<context>
    <name>quantscope::SigmaPlot</name>
    <message>
        <source>index i</source>
        <translation>Index i</translation>
    </message>
    <message>
        <source>singular value σᵢ of W − Ŵ</source>
        <translation>Singulärwert σᵢ von W − Ŵ</translation>
    </message>
    <message>
        <source>σ%1</source>
        <translation>σ%1</translation>
    </message>
    <message>
        <source>%1: %2 (%3 σ₁)</source>
        <translation>%1: %2 (%3 σ₁)</translation>
    </message>
</context>
<context>
    <name>quantscope::SpecForm</name>
    <message>
        <source>Method:</source>
        <translation>Methode:</translation>
    </message>
    <message>
        <source>The spec&apos;s JSON (read-only): what the recipe file holds</source>
        <translation>Das JSON der Spezifikation (nur lesbar): was die Rezeptdatei enthält</translation>
    </message>
</context>
<context>
    <name>quantscope::SpecWords</name>
    <message>
        <source>Bits</source>
        <translation>Bitbreite</translation>
    </message>
    <message>
        <source>Granularity</source>
        <translation>Granularität</translation>
    </message>
    <message>
        <source>Group size</source>
        <translation>Gruppengröße</translation>
    </message>
    <message>
        <source>Block size</source>
        <translation>Blockgröße</translation>
    </message>
    <message>
        <source>Channel axis</source>
        <translation>Kanalachse</translation>
    </message>
    <message>
        <source>Symmetric</source>
        <translation>Symmetrisch</translation>
    </message>
    <message>
        <source>Scale rule</source>
        <translation>Skalenregel</translation>
    </message>
    <message>
        <source>Rounding</source>
        <translation>Rundung</translation>
    </message>
    <message>
        <source>Scale applied by</source>
        <translation>Skala angewandt durch</translation>
    </message>
    <message>
        <source>Scale type</source>
        <translation>Skalentyp</translation>
    </message>
    <message>
        <source>E8M0 rounding</source>
        <translation>E8M0-Rundung</translation>
    </message>
    <message>
        <source>Arithmetic</source>
        <translation>Arithmetik</translation>
    </message>
    <message>
        <source>Refuse ragged groups</source>
        <translation>Unvollständige Gruppen ablehnen</translation>
    </message>
    <message>
        <source>Scale of a zero group</source>
        <translation>Skala einer Nullgruppe</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>Zahlenformat</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>Rang</translation>
    </message>
    <message>
        <source>Passes</source>
        <translation>Durchläufe</translation>
    </message>
    <message>
        <source>Iterations</source>
        <translation>Iterationen</translation>
    </message>
    <message>
        <source>Power iterations</source>
        <translation>Potenziterationen</translation>
    </message>
    <message>
        <source>Scale constant c</source>
        <translation>Skalenkonstante c</translation>
    </message>
    <message>
        <source>Random seed</source>
        <translation>Zufallsstartwert</translation>
    </message>
    <message>
        <source>Preset</source>
        <translation>Voreinstellung</translation>
    </message>
    <message>
        <source>Compute precision</source>
        <translation>Rechengenauigkeit</translation>
    </message>
    <message>
        <source>Zero-point rounding</source>
        <translation>Nullpunkt-Rundung</translation>
    </message>
    <message>
        <source>Encoder</source>
        <translation>Kodierer</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>Modus</translation>
    </message>
    <message>
        <source>Compensator</source>
        <translation>Kompensator</translation>
    </message>
    <message>
        <source>Compensator group size</source>
        <translation>Gruppengröße des Kompensators</translation>
    </message>
    <message>
        <source>HQQ preset</source>
        <translation>HQQ-Voreinstellung</translation>
    </message>
    <message>
        <source>per tensor</source>
        <translation>pro Tensor</translation>
    </message>
    <message>
        <source>per channel</source>
        <translation>pro Kanal</translation>
    </message>
    <message>
        <source>per group</source>
        <translation>pro Gruppe</translation>
    </message>
    <message>
        <source>per block</source>
        <translation>pro Block</translation>
    </message>
    <message>
        <source>toolkit (amax/7.5)</source>
        <translation>Toolkit (amax/7,5)</translation>
    </message>
    <message>
        <source>maximum (amax/7)</source>
        <translation>Maximum (amax/7)</translation>
    </message>
    <message>
        <source>half to even</source>
        <translation>Hälfte zur geraden Zahl</translation>
    </message>
    <message>
        <source>half away from zero</source>
        <translation>Hälfte von null weg</translation>
    </message>
    <message>
        <source>dividing by s</source>
        <translation>Division durch s</translation>
    </message>
    <message>
        <source>multiplying by 1/s</source>
        <translation>Multiplikation mit 1/s</translation>
    </message>
    <message>
        <source>E8M0 (power of two)</source>
        <translation>E8M0 (Zweierpotenz)</translation>
    </message>
    <message>
        <source>round up</source>
        <translation>aufrunden</translation>
    </message>
    <message>
        <source>round to nearest</source>
        <translation>zum Nächsten runden</translation>
    </message>
    <message>
        <source>in FP32</source>
        <translation>mit FP32</translation>
    </message>
    <message>
        <source>in the tensor&apos;s own type</source>
        <translation>im eigenen Typ des Tensors</translation>
    </message>
    <message>
        <source>toolkit (eps of the scale type)</source>
        <translation>Toolkit (eps des Skalentyps)</translation>
    </message>
    <message>
        <source>smallest normal float</source>
        <translation>kleinste normale Gleitkommazahl</translation>
    </message>
    <message>
        <source>E4M3 (max 448)</source>
        <translation>E4M3 (max. 448)</translation>
    </message>
    <message>
        <source>E5M2 (max 57344)</source>
        <translation>E5M2 (max. 57344)</translation>
    </message>
    <message>
        <source>Only with %1 “%2”</source>
        <translation>Nur mit %1 „%2“</translation>
    </message>
    <message>
        <source>Hadamard rotation block</source>
        <translation>Hadamard-Rotationsblock</translation>
    </message>
    <message>
        <source>First stage</source>
        <translation>Erste Stufe</translation>
    </message>
    <message>
        <source>Second stage</source>
        <translation>Zweite Stufe</translation>
    </message>
    <message>
        <source>uniform integer INT2–8, per tensor / channel / group / block</source>
        <translation>gleichmäßige Ganzzahlen INT2–8, pro Tensor / Kanal / Gruppe / Block</translation>
    </message>
    <message>
        <source>code width in bits (2..8)</source>
        <translation>Codebreite in Bit (2..8)</translation>
    </message>
    <message>
        <source>one scale per tensor, channel (row), group of K elements or b×b block</source>
        <translation>eine Skala pro Tensor, Kanal (Zeile), Gruppe von K Elementen oder b×b-Block</translation>
    </message>
    <message>
        <source>group size along K (input dimension)</source>
        <translation>Gruppengröße entlang K (Eingangsdimension)</translation>
    </message>
    <message>
        <source>block (tile) size for block granularity</source>
        <translation>Block-(Kachel-)Größe für Block-Granularität</translation>
    </message>
    <message>
        <source>channel axis: 0 = output rows, 1 = input columns</source>
        <translation>Kanalachse: 0 = Ausgangszeilen, 1 = Eingangsspalten</translation>
    </message>
    <message>
        <source>symmetric (zero point 0) or asymmetric (signed zero point)</source>
        <translation>symmetrisch (Nullpunkt 0) oder asymmetrisch (vorzeichenbehafteter Nullpunkt)</translation>
    </message>
    <message>
        <source>toolkit: amax/((qmax−qmin)/2) (INT4 /7.5); max: amax/qmax (INT4 /7)</source>
        <translation>Toolkit: amax/((qmax−qmin)/2) (INT4 /7,5); Maximum: amax/qmax (INT4 /7)</translation>
    </message>
    <message>
        <source>round half to even (torch) or half away from zero</source>
        <translation>Hälfte zur geraden Zahl runden (torch) oder Hälfte von null weg</translation>
    </message>
    <message>
        <source>divide: round(x/s) + z (compressed-tensors); reciprocal: round(x·(1/s) + z) (AMD Quark)</source>
        <translation>Division: round(x/s) + z (compressed-tensors); Kehrwert: round(x·(1/s) + z) (AMD Quark)</translation>
    </message>
    <message>
        <source>dtype the scale is rounded to and stored in</source>
        <translation>Datentyp, auf den die Skala gerundet und in dem sie gespeichert wird</translation>
    </message>
    <message>
        <source>E8M0 scales: ceil keeps |x|/s within range; round may clip</source>
        <translation>E8M0-Skalen: Aufrunden hält |x|/s im Bereich; Runden kann abschneiden</translation>
    </message>
    <message>
        <source>fp32: compute in FP32; source: in the tensor&apos;s own dtype (toolkit parity on BF16)</source>
        <translation>fp32: in FP32 rechnen; source: im eigenen Datentyp des Tensors (Gleichheit mit dem Toolkit bei BF16)</translation>
    </message>
    <message>
        <source>refuse K not divisible by the group size instead of a ragged last group</source>
        <translation>K ablehnen, das nicht durch die Gruppengröße teilbar ist, statt einer unvollständigen letzten Gruppe</translation>
    </message>
    <message>
        <source>scale of a zero group: toolkit = finfo(scale dtype).eps, plain = FLT_MIN</source>
        <translation>Skala einer Nullgruppe: Toolkit = finfo(Skalentyp).eps, einfach = FLT_MIN</translation>
    </message>
    <message>
        <source>FP8 E4M3 / E5M2, per tensor / channel / 128×128 block</source>
        <translation>FP8 E4M3 / E5M2, pro Tensor / Kanal / 128×128-Block</translation>
    </message>
    <message>
        <source>E4M3 (e4m3fn, max 448) or E5M2 (max 57344)</source>
        <translation>E4M3 (e4m3fn, höchstens 448) oder E5M2 (höchstens 57344)</translation>
    </message>
    <message>
        <source>one scale per tensor, per output row, or per b×b block (DeepSeek weight_scale_inv)</source>
        <translation>eine Skala pro Tensor, pro Ausgangszeile oder pro b×b-Block (DeepSeek weight_scale_inv)</translation>
    </message>
    <message>
        <source>fp32: compute in FP32; source: in the tensor&apos;s own dtype</source>
        <translation>fp32: in FP32 rechnen; source: im eigenen Datentyp des Tensors</translation>
    </message>
    <message>
        <source>scale of a zero tensor/row/block: toolkit = FP32 eps, plain = FLT_MIN</source>
        <translation>Skala eines Null-Tensors/einer Null-Zeile/eines Null-Blocks: Toolkit = FP32-eps, einfach = FLT_MIN</translation>
    </message>
    <message>
        <source>HQQ half-quadratic INT2–8 (presets hqq-lib, milo-code), iterative zero-point fit</source>
        <translation>HQQ halbquadratisch INT2–8 (Voreinstellungen hqq-lib, milo-code), iterative Anpassung des Nullpunkts</translation>
    </message>
    <message>
        <source>hqq-lib: mobiusml/hqq&apos;s hqq_base_quant_config; milo-code: MiLo&apos;s released quantizer</source>
        <translation>hqq-lib: hqq_base_quant_config von mobiusml/hqq; milo-code: der veröffentlichte Quantisierer von MiLo</translation>
    </message>
    <message>
        <source>code width in bits (2..8; unsigned codes 0..2^b−1)</source>
        <translation>Codebreite in Bit (2..8; vorzeichenlose Codes 0..2^b−1)</translation>
    </message>
    <message>
        <source>group size (hqq-lib: a multiple of 8); numel must be divisible by it</source>
        <translation>Gruppengröße (hqq-lib: ein Vielfaches von 8); die Elementzahl muss durch sie teilbar sein</translation>
    </message>
    <message>
        <source>HQQ grouping: 1 = g consecutive elements, 0 = g elements spaced numel/g apart</source>
        <translation>HQQ-Gruppierung: 1 = g aufeinanderfolgende Elemente, 0 = g Elemente im Abstand numel/g</translation>
    </message>
    <message>
        <source>fp32 (the library on CPU) or fp16 (every op rounded to FP16, the library on CUDA)</source>
        <translation>fp32 (die Bibliothek auf der CPU) oder fp16 (jede Operation auf FP16 gerundet, die Bibliothek unter CUDA)</translation>
    </message>
    <message>
        <source>round z at initialisation: as the preset (hqq-lib 4-bit only), always, never</source>
        <translation>z bei der Initialisierung runden: wie die Voreinstellung (nur hqq-lib 4 Bit), immer, nie</translation>
    </message>
    <message>
        <source>maximum optimiser iterations (the library: 20)</source>
        <translation>höchste Zahl der Optimierer-Iterationen (die Bibliothek: 20)</translation>
    </message>
    <message>
        <source>MiLo: HQQ + low-rank compensator U·V fit by alternating passes</source>
        <translation>MiLo: HQQ + niedrigrangiger Kompensator U·V, in abwechselnden Durchläufen angepasst</translation>
    </message>
    <message>
        <source>code: 11 passes, no early stop (the released loop); paper: ≤ 20 passes, early stop; both return the best pass</source>
        <translation>code: 11 Durchläufe, kein früher Abbruch (die veröffentlichte Schleife); paper: ≤ 20 Durchläufe, früher Abbruch; beide liefern den besten Durchlauf</translation>
    </message>
    <message>
        <source>number of passes (0: the preset&apos;s)</source>
        <translation>Zahl der Durchläufe (0: die der Voreinstellung)</translation>
    </message>
    <message>
        <source>compensator rank r (clamped to min(N, K); 0 = plain HQQ)</source>
        <translation>Rang r des Kompensators (begrenzt auf min(N, K); 0 = reines HQQ)</translation>
    </message>
    <message>
        <source>U, V stored as FP16, INT8 (symmetric, per group), INT3 (paper eq. 15) or milo-code-int3</source>
        <translation>U, V gespeichert als FP16, INT8 (symmetrisch, pro Gruppe), INT3 (Artikel Gl. 15) oder milo-code-int3</translation>
    </message>
    <message>
        <source>group size of the integer compensators (flattened factor)</source>
        <translation>Gruppengröße der ganzzahligen Kompensatoren (abgeflachter Faktor)</translation>
    </message>
    <message>
        <source>Philox seed of the randomized SVD</source>
        <translation>Philox-Startwert der randomisierten SVD</translation>
    </message>
    <message>
        <source>power iterations of the randomized SVD (torch default 2)</source>
        <translation>Potenziterationen der randomisierten SVD (torch-Vorgabe 2)</translation>
    </message>
    <message>
        <source>inner HQQ preset (default milo-code: 3-bit, g 64, axis 0)</source>
        <translation>innere HQQ-Voreinstellung (Vorgabe milo-code: 3 Bit, g 64, Achse 0)</translation>
    </message>
    <message>
        <source>inner HQQ code width</source>
        <translation>Codebreite des inneren HQQ</translation>
    </message>
    <message>
        <source>inner HQQ group size</source>
        <translation>Gruppengröße des inneren HQQ</translation>
    </message>
    <message>
        <source>inner HQQ grouping axis</source>
        <translation>Gruppierungsachse des inneren HQQ</translation>
    </message>
    <message>
        <source>inner HQQ arithmetic: fp32 or fp16 (per-op FP16 as on CUDA)</source>
        <translation>Arithmetik des inneren HQQ: fp32 oder fp16 (FP16 je Operation wie unter CUDA)</translation>
    </message>
    <message>
        <source>inner HQQ zero rounding: preset, always, never</source>
        <translation>Nullpunkt-Rundung des inneren HQQ: Voreinstellung, immer, nie</translation>
    </message>
    <message>
        <source>inner HQQ maximum optimiser iterations</source>
        <translation>höchste Zahl der Optimierer-Iterationen des inneren HQQ</translation>
    </message>
    <message>
        <source>MXFP4: FP4 E2M1, E8M0 scale per 32 (even / floor / ceil)</source>
        <translation>MXFP4: FP4 E2M1, E8M0-Skala je 32 (gerade / abrunden / aufrunden)</translation>
    </message>
    <message>
        <source>shared exponent: even (Quark/compressed-tensors, amax mantissa rounded first), floor (OCP), ceil</source>
        <translation>gemeinsamer Exponent: gerade (Quark/compressed-tensors, Mantisse von amax zuerst gerundet), abrunden (OCP), aufrunden</translation>
    </message>
    <message>
        <source>elements per E8M0 scale along K (32 in the MX spec)</source>
        <translation>Elemente je E8M0-Skala entlang K (32 in der MX-Spezifikation)</translation>
    </message>
    <message>
        <source>NVFP4: FP4 E2M1, E4M3 scale per 16, FP32 global</source>
        <translation>NVFP4: FP4 E2M1, E4M3-Skala je 16, globale FP32-Skala</translation>
    </message>
    <message>
        <source>elements per E4M3 block scale along K (16 in NVFP4)</source>
        <translation>Elemente je E4M3-Blockskala entlang K (16 in NVFP4)</translation>
    </message>
    <message>
        <source>two stages (Quark ProgressiveSpec): FP8 per tensor → INT4 per channel</source>
        <translation>zwei Stufen (Quark ProgressiveSpec): FP8 pro Tensor → INT4 pro Kanal</translation>
    </message>
    <message>
        <source>first stage, applied to W (default FP8 E4M3 per tensor: weight_scale)</source>
        <translation>erste Stufe, auf W angewandt (Vorgabe FP8 E4M3 pro Tensor: weight_scale)</translation>
    </message>
    <message>
        <source>second stage, applied to the stage-1 domain values (default INT4 symmetric per channel: weight_scale_2)</source>
        <translation>zweite Stufe, auf die Werte im Bereich der ersten Stufe angewandt (Vorgabe INT4 symmetrisch pro Kanal: weight_scale_2)</translation>
    </message>
    <message>
        <source>FP4 constOpt: s = c·max per group, optional Hadamard rotation</source>
        <translation>FP4 constOpt: s = c·max pro Gruppe, wahlweise Hadamard-Rotation</translation>
    </message>
    <message>
        <source>scale constant: s = c·max|x| per group (paper deploys 0.156)</source>
        <translation>Skalenkonstante: s = c·max|x| pro Gruppe (der Artikel verwendet 0,156)</translation>
    </message>
    <message>
        <source>elements per scale along K</source>
        <translation>Elemente je Skala entlang K</translation>
    </message>
    <message>
        <source>pow2: s = 2^round(log2(c·m)) stored as UE8M0; unrounded: s = c·m in FP32</source>
        <translation>pow2: s = 2^round(log2(c·m)), als UE8M0 gespeichert; ungerundet: s = c·m in FP32</translation>
    </message>
    <message>
        <source>Walsh–Hadamard block size d along K (a power of two dividing K); 0 = none</source>
        <translation>Walsh-Hadamard-Blockgröße d entlang K (eine Zweierpotenz, die K teilt); 0 = keine</translation>
    </message>
    <message>
        <source>GPTQ (llm-compressor): INT codes chosen against the captured inputs&apos; Hessian; needs a capture</source>
        <translation>GPTQ (llm-compressor): INT-Codes anhand der Hesse-Matrix der aufgezeichneten Eingaben gewählt; braucht eine Aufzeichnung</translation>
    </message>
    <message>
        <source>GPTQ: columns per lazy-batch block (llm-compressor 128)</source>
        <translation>GPTQ: Spalten je Lazy-Batch-Block (llm-compressor 128)</translation>
    </message>
    <message>
        <source>GPTQ: fraction of mean diag(H) added to diag(H)</source>
        <translation>GPTQ: Anteil des mittleren diag(H), der zu diag(H) addiert wird</translation>
    </message>
    <message>
        <source>GPTQ: column order: none, or by diag(H) descending (static = weight: each column keeps its group&apos;s scale)</source>
        <translation>GPTQ: Spaltenreihenfolge: keine oder nach absteigendem diag(H) (static = weight: jede Spalte behält die Skala ihrer Gruppe)</translation>
    </message>
    <message>
        <source>GPTQ: the codes&apos; format: int (the INT options above), fp8 (E4M3, per tensor or channel), nvfp4 (E2M1, E4M3 scales of 16 and an FP32 global scale), mxfp4 (E2M1, E8M0 scales of 32)</source>
        <translation>GPTQ: Format der Codes: int (die INT-Optionen oben), fp8 (E4M3, pro Tensor oder Kanal), nvfp4 (E2M1, E4M3-Skalen zu 16 und eine globale FP32-Skala), mxfp4 (E2M1, E8M0-Skalen zu 32)</translation>
    </message>
    <message>
        <source>AWQ (llm-compressor): per-input-channel scales searched on the captured sample, then INT; needs a capture</source>
        <translation>AWQ (llm-compressor): Skalen je Eingangskanal, an der aufgezeichneten Stichprobe gesucht, dann INT; braucht eine Aufzeichnung</translation>
    </message>
    <message>
        <source>AWQ: grid points of the scale search (llm-compressor 20)</source>
        <translation>AWQ: Gitterpunkte der Skalensuche (llm-compressor 20)</translation>
    </message>
    <message>
        <source>AWQ: scales from activations and weights (on), activations only (off), or half the grid each</source>
        <translation>AWQ: Skalen aus Aktivierungen und Gewichten (on), nur Aktivierungen (off) oder je das halbe Gitter</translation>
    </message>
    <message>
        <source>llama.cpp&apos;s block types Q4_0…Q8_0, the K-quants Q2_K…Q6_K and the i-quants IQ1_S…IQ4_XS (ggml&apos;s quantizers)</source>
        <translation>Blocktypen von llama.cpp Q4_0…Q8_0, die K-Quants Q2_K…Q6_K und die i-Quants IQ1_S…IQ4_XS (Quantisierer von ggml)</translation>
    </message>
    <message>
        <source>llama.cpp&apos;s block type: q4_0 q4_1 q5_0 q5_1 q8_0 iq4_nl mxfp4 (blocks of 32), q2_k … q6_k, tq1_0 tq2_0 and the i-quants iq1_s … iq4_xs (super-blocks of 256)</source>
        <translation>Blocktyp von llama.cpp: q4_0 q4_1 q5_0 q5_1 q8_0 iq4_nl mxfp4 (Blöcke zu 32), q2_k … q6_k, tq1_0 tq2_0 und die i-Quants iq1_s … iq4_xs (Superblöcke zu 256)</translation>
    </message>
    <message>
        <source>K-quants and i-quants: importance weights from the paired capture (per input channel mean x², llama.cpp&apos;s imatrix); iq1_s iq1_m iq2_xxs iq2_xs iq2_s iq3_xxs require it</source>
        <translation>K-Quants und i-Quants: Wichtigkeitsgewichte aus der gekoppelten Aufzeichnung (Mittelwert x² je Eingangskanal, imatrix von llama.cpp); iq1_s iq1_m iq2_xxs iq2_xs iq2_s iq3_xxs setzen sie voraus</translation>
    </message>
</context>
<context>
    <name>quantscope::SpectrumView</name>
    <message>
        <source>The configuration the rank slider reads</source>
        <translation>Die Konfiguration, die der Rang-Schieberegler liest</translation>
    </message>
    <message>
        <source>Compute &amp;spectra</source>
        <translation>&amp;Spektren berechnen</translation>
    </message>
    <message>
        <source>Each run also takes the singular values of W − Ŵ (in the same background job)</source>
        <translation>Jeder Lauf berechnet auch die Singulärwerte von W − Ŵ (im selben Hintergrundauftrag)</translation>
    </message>
    <message>
        <source>&amp;All values</source>
        <translation>&amp;Alle Werte</translation>
    </message>
    <message>
        <source>All min(N, K) singular values (up to 4096) instead of the top k</source>
        <translation>Alle min(N, K) Singulärwerte (bis 4096) statt der obersten k</translation>
    </message>
    <message>
        <source>top </source>
        <translation>oberste </translation>
    </message>
    <message>
        <source>Threshold of the counts: σᵢ ≥ τ·σ₁ and σᵢ &lt; τ·σ₁</source>
        <translation>Schwelle der Zählungen: σᵢ ≥ τ·σ₁ und σᵢ &lt; τ·σ₁</translation>
    </message>
    <message>
        <source>&amp;Compute</source>
        <translation>&amp;Berechnen</translation>
    </message>
    <message>
        <source>Run the configurations again with their spectra</source>
        <translation>Die Konfigurationen erneut mit ihren Spektren ausführen</translation>
    </message>
    <message>
        <source>rank r</source>
        <translation>Rang r</translation>
    </message>
    <message>
        <source>energy captured by the top r</source>
        <translation>von den obersten r erfasste Energie</translation>
    </message>
    <message>
        <source>relative error after rank r</source>
        <translation>relativer Fehler nach Rang r</translation>
    </message>
    <message>
        <source>MB with FP16 U·V of rank r</source>
        <translation>MB mit FP16-U·V vom Rang r</translation>
    </message>
    <message>
        <source>MiLo pass</source>
        <translation>MiLo-Durchlauf</translation>
    </message>
    <message>
        <source>Rank r of an FP16 compensator U·V fitted to the residual</source>
        <translation>Rang r eines an das Residuum angepassten FP16-Kompensators U·V</translation>
    </message>
    <message>
        <source>Run &amp;MiLo at This Rank</source>
        <translation>&amp;MiLo mit diesem Rang ausführen</translation>
    </message>
    <message>
        <source>Select tensors and press Run with “Compute spectra” on to see the singular values of each configuration&apos;s error W − Ŵ.</source>
        <translation>Tensoren auswählen und mit eingeschaltetem „Spektren berechnen“ Ausführen drücken, um die Singulärwerte des Fehlers W − Ŵ jeder Konfiguration zu sehen.</translation>
    </message>
    <message>
        <source>These results have no spectra: press Compute.</source>
        <translation>Diese Ergebnisse haben keine Spektren: Berechnen drücken.</translation>
    </message>
    <message numerus="yes">
        <source>%n configuration(s) without a spectrum: press Compute.</source>
        <translation>
            <numerusform>%n Konfiguration ohne Spektrum: Berechnen drücken.</numerusform>
            <numerusform>%n Konfigurationen ohne Spektrum: Berechnen drücken.</numerusform>
        </translation>
    </message>
    <message>
        <source>%1: %2%3 σ ≥ τ·σ₁, %4%5 below (of %6)</source>
        <translation>%1: %2%3 σ ≥ τ·σ₁, %4%5 darunter (von %6)</translation>
    </message>
    <message>
        <source>r = %1</source>
        <translation>r = %1</translation>
    </message>
    <message>
        <source>%1 bits/element, %2 MB</source>
        <translation>%1 Bit/Element, %2 MB</translation>
    </message>
    <message>
        <source>ε = ‖W − Ŵ − U·V‖ (Frobenius)</source>
        <translation>ε = ‖W − Ŵ − U·V‖ (Frobenius-Norm)</translation>
    </message>
    <message>
        <source>error ‖E − Eᵣ‖ %1 (relative %2), %3 of ‖E‖² captured (Frobenius norms)</source>
        <translation>Fehler ‖E − Eᵣ‖ %1 (relativ %2), %3 von ‖E‖² erfasst (Frobenius-Normen)</translation>
    </message>
    <message>
        <source>Add this configuration as MiLo with rank r (FP16 compensator), a configuration of its own, and run only that: the finished results stay</source>
        <translation>Diese Konfiguration als MiLo mit Rang r (FP16-Kompensator) als eigene Konfiguration hinzufügen und nur diese ausführen: die fertigen Ergebnisse bleiben</translation>
    </message>
    <message>
        <source>Configuration %1 is no longer in the quantizer panel.</source>
        <translation>Konfiguration %1 ist nicht mehr im Quantisierer-Fenster.</translation>
    </message>
    <message>
        <source>The quantizer panel holds %1 configurations already: remove one to add MiLo at rank %2.</source>
        <translation>Das Quantisierer-Fenster enthält schon %1 Konfigurationen: entfernen Sie eine, um MiLo mit Rang %2 hinzuzufügen.</translation>
    </message>
</context>
<context>
    <name>quantscope::TensorBrowser</name>
    <message>
        <source>Filter by name…</source>
        <translation>Filtern…</translation>
    </message>
    <message>
        <source>Wildcard</source>
        <translation>Platzhalter</translation>
    </message>
    <message>
        <source>Regex</source>
        <translation>Regex</translation>
    </message>
    <message>
        <source>Wildcard: * and ? (e.g. layers.*.down_proj). Regex: a regular expression (e.g. experts\.[0-3]\.). Both ignore case and match anywhere in the name.</source>
        <translation>Platzhalter: * und ? (z. B. layers.*.down_proj). Regex: ein regulärer Ausdruck (z. B. experts\.[0-3]\.). Beide ignorieren Groß-/Kleinschreibung und passen an jeder Stelle des Namens.</translation>
    </message>
    <message>
        <source>Not a valid regular expression: %1</source>
        <translation>Kein gültiger regulärer Ausdruck: %1</translation>
    </message>
    <message>
        <source>Pair as &amp;Activation</source>
        <translation>Als &amp;Aktivierung koppeln</translation>
    </message>
    <message>
        <source>Show this tensor&apos;s channel maxima next to each weight you quantize</source>
        <translation>Die Kanal-Maxima dieses Tensors neben jedem quantisierten Gewicht zeigen</translation>
    </message>
    <message>
        <source>&amp;Unpair Activation</source>
        <translation>Aktivierung &amp;entkoppeln</translation>
    </message>
    <message>
        <source>&amp;Expand All</source>
        <translation>Alle a&amp;ufklappen</translation>
    </message>
    <message>
        <source>&amp;Collapse All</source>
        <translation>Alle &amp;zuklappen</translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n tensor(s) selected</source>
        <translation>
            <numerusform>%1 von %n Tensor ausgewählt</numerusform>
            <numerusform>%1 von %n Tensoren ausgewählt</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n tensor(s)</source>
        <translation>
            <numerusform>%n Tensor</numerusform>
            <numerusform>%n Tensoren</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n shown</source>
        <translation>
            <numerusform>%n angezeigt</numerusform>
            <numerusform>%n angezeigt</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>quantscope::TensorTreeModel</name>
    <message>
        <source>scalar</source>
        <translation>Skalar</translation>
    </message>
    <message numerus="yes">
        <source>%n tensor(s)</source>
        <translation>
            <numerusform>%n Tensor</numerusform>
            <numerusform>%n Tensoren</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 · paired activation</source>
        <translation>%1 · gekoppelte Aktivierung</translation>
    </message>
    <message>
        <source>%1
Paired as the activation of the weights you quantize</source>
        <translation>%1
Als Aktivierung der quantisierten Gewichte gekoppelt</translation>
    </message>
    <message>
        <source>%1 elements</source>
        <translation>%1 Elemente</translation>
    </message>
    <message>
        <source>%1 bytes</source>
        <translation>%1 Bytes</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Bezeichnung</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>Typ</translation>
    </message>
    <message>
        <source>Shape</source>
        <translation>Form</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>Größe</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>Datenformat</translation>
    </message>
    <message>
        <source>Tensor name, grouped by its dotted path</source>
        <translation>Tensorname, nach seinem Punkt-Pfad gruppiert</translation>
    </message>
    <message>
        <source>Element type as stored in the file</source>
        <translation>Elementtyp, wie in der Datei gespeichert</translation>
    </message>
    <message>
        <source>Dimensions, outermost first</source>
        <translation>Dimensionen, äußerste zuerst</translation>
    </message>
    <message>
        <source>Bytes the tensor (or group) occupies in its file</source>
        <translation>Bytes, die der Tensor (oder die Gruppe) in seiner Datei belegt</translation>
    </message>
    <message>
        <source>Quantized format and scheme, as detected from the stored tensors</source>
        <translation>Quantisiertes Format und Schema, wie aus den gespeicherten Tensoren erkannt</translation>
    </message>
</context>
<context>
    <name>quantscope::language</name>
    <message>
        <source>per tensor</source>
        <translation>pro Tensor</translation>
    </message>
    <message>
        <source>per channel</source>
        <translation>pro Kanal</translation>
    </message>
    <message>
        <source>per column</source>
        <translation>pro Spalte</translation>
    </message>
    <message>
        <source>block</source>
        <translation>Block</translation>
    </message>
    <message>
        <source>sym</source>
        <translation>symm.</translation>
    </message>
    <message>
        <source>asym</source>
        <translation>asymm.</translation>
    </message>
    <message>
        <source>-bit</source>
        <translation>-Bit</translation>
    </message>
    <message>
        <source>System language</source>
        <translation>Systemsprache</translation>
    </message>
</context>
<context>
    <name>quantscope::SchemeWords</name>
    <message>
        <source>Stored as %1</source>
        <translation>Gespeichert als %1</translation>
    </message>
</context>
<context>
    <name>quantscope::GgmlScheme</name>
    <message>
        <source>dense floats</source>
        <translation>dichte Gleitkommazahlen</translation>
    </message>
    <message>
        <source>dense integers</source>
        <translation>dichte Ganzzahlen</translation>
    </message>
    <message>
        <source>blocks of 32, F16 scale d, 4-bit codes, w = d·(q − 8)</source>
        <translation>Blöcke zu 32, F16-Skala d, 4-Bit-Codes, w = d·(q − 8)</translation>
    </message>
    <message>
        <source>blocks of 32, F16 scale d and min m, 4-bit codes, w = d·q + m</source>
        <translation>Blöcke zu 32, F16-Skala d und Minimum m, 4-Bit-Codes, w = d·q + m</translation>
    </message>
    <message>
        <source>blocks of 32, F16 scale d, 5-bit codes, w = d·(q − 16)</source>
        <translation>Blöcke zu 32, F16-Skala d, 5-Bit-Codes, w = d·(q − 16)</translation>
    </message>
    <message>
        <source>blocks of 32, F16 scale d and min m, 5-bit codes, w = d·q + m</source>
        <translation>Blöcke zu 32, F16-Skala d und Minimum m, 5-Bit-Codes, w = d·q + m</translation>
    </message>
    <message>
        <source>blocks of 32, F16 scale d, 8-bit signed codes, w = d·q</source>
        <translation>Blöcke zu 32, F16-Skala d, vorzeichenbehaftete 8-Bit-Codes, w = d·q</translation>
    </message>
    <message>
        <source>blocks of 32, F32 scale and sum, 8-bit signed codes (activations only)</source>
        <translation>Blöcke zu 32, F32-Skala und Summe, vorzeichenbehaftete 8-Bit-Codes (nur Aktivierungen)</translation>
    </message>
    <message>
        <source>super-blocks of 256, 16 sub-blocks of 16, 4-bit scales and mins (F16 d, dmin), 2-bit codes</source>
        <translation>Superblöcke zu 256, 16 Unterblöcke zu 16, 4-Bit-Skalen und -Minima (F16 d, dmin), 2-Bit-Codes</translation>
    </message>
    <message>
        <source>super-blocks of 256, 16 sub-blocks of 16, 6-bit signed scales (F16 d), 3-bit codes</source>
        <translation>Superblöcke zu 256, 16 Unterblöcke zu 16, vorzeichenbehaftete 6-Bit-Skalen (F16 d), 3-Bit-Codes</translation>
    </message>
    <message>
        <source>super-blocks of 256, 8 sub-blocks of 32, 6-bit scales and mins (F16 d, dmin), 4-bit codes</source>
        <translation>Superblöcke zu 256, 8 Unterblöcke zu 32, 6-Bit-Skalen und -Minima (F16 d, dmin), 4-Bit-Codes</translation>
    </message>
    <message>
        <source>super-blocks of 256, 8 sub-blocks of 32, 6-bit scales and mins (F16 d, dmin), 5-bit codes</source>
        <translation>Superblöcke zu 256, 8 Unterblöcke zu 32, 6-Bit-Skalen und -Minima (F16 d, dmin), 5-Bit-Codes</translation>
    </message>
    <message>
        <source>super-blocks of 256, 16 sub-blocks of 16, 8-bit signed scales (F16 d), 6-bit codes</source>
        <translation>Superblöcke zu 256, 16 Unterblöcke zu 16, vorzeichenbehaftete 8-Bit-Skalen (F16 d), 6-Bit-Codes</translation>
    </message>
    <message>
        <source>super-blocks of 256, F32 scale, 8-bit signed codes (activations only)</source>
        <translation>Superblöcke zu 256, F32-Skala, vorzeichenbehaftete 8-Bit-Codes (nur Aktivierungen)</translation>
    </message>
    <message>
        <source>super-blocks of 256, 8 sub-blocks of 32 with 4-bit scales, 8-value E8-lattice codes (256 points) + 7-bit sign patterns; 2.06 bits per weight</source>
        <translation>Superblöcke zu 256, 8 Unterblöcke zu 32 mit 4-Bit-Skalen, 8-wertige E8-Gitter-Codes (256 Punkte) + 7-Bit-Vorzeichenmuster; 2,06 Bit pro Gewicht</translation>
    </message>
    <message>
        <source>super-blocks of 256, 16 sub-blocks of 16 with 4-bit scales, 9-bit E8-lattice codes (512 points) + 7-bit signs; 2.31 bits per weight</source>
        <translation>Superblöcke zu 256, 16 Unterblöcke zu 16 mit 4-Bit-Skalen, 9-Bit-E8-Gitter-Codes (512 Punkte) + 7-Bit-Vorzeichen; 2,31 Bit pro Gewicht</translation>
    </message>
    <message>
        <source>super-blocks of 256, 16 sub-blocks of 16 with 4-bit scales, 10-bit lattice codes (1024 points), explicit sign bits; 2.5 bits per weight</source>
        <translation>Superblöcke zu 256, 16 Unterblöcke zu 16 mit 4-Bit-Skalen, 10-Bit-Gitter-Codes (1024 Punkte), eigene Vorzeichenbits; 2,5 Bit pro Gewicht</translation>
    </message>
    <message>
        <source>super-blocks of 256, 8 sub-blocks of 32 with 4-bit scales, 4-value lattice codes (256 points) + 7-bit signs; 3.06 bits per weight</source>
        <translation>Superblöcke zu 256, 8 Unterblöcke zu 32 mit 4-Bit-Skalen, 4-wertige Gitter-Codes (256 Punkte) + 7-Bit-Vorzeichen; 3,06 Bit pro Gewicht</translation>
    </message>
    <message>
        <source>super-blocks of 256, 8 sub-blocks of 32 with 4-bit odd scales, 9-bit 4-value lattice codes (512 points), explicit sign bits; 3.44 bits per weight</source>
        <translation>Superblöcke zu 256, 8 Unterblöcke zu 32 mit ungeraden 4-Bit-Skalen, 9-Bit-Codes eines 4-wertigen Gitters (512 Punkte), eigene Vorzeichenbits; 3,44 Bit pro Gewicht</translation>
    </message>
    <message>
        <source>super-blocks of 256, 8 sub-blocks of 32 with 3-bit odd scales and a ±1/8 shift, 11-bit ternary-lattice codes (2048 points); 1.56 bits per weight</source>
        <translation>Superblöcke zu 256, 8 Unterblöcke zu 32 mit ungeraden 3-Bit-Skalen und einer Verschiebung um ±1/8, 11-Bit-Codes eines ternären Gitters (2048 Punkte); 1,56 Bit pro Gewicht</translation>
    </message>
    <message>
        <source>super-blocks of 256, 16 sub-blocks of 16 with 3-bit odd scales (F16 d split over their high bits), ±1/8 shift per 8, 11-bit ternary-lattice codes; 1.75 bits per weight</source>
        <translation>Superblöcke zu 256, 16 Unterblöcke zu 16 mit ungeraden 3-Bit-Skalen (F16 d auf ihre oberen Bits verteilt), Verschiebung um ±1/8 je 8, 11-Bit-Codes eines ternären Gitters; 1,75 Bit pro Gewicht</translation>
    </message>
    <message>
        <source>blocks of 32, F16 scale d, 4-bit indexes into a 16-value non-linear table</source>
        <translation>Blöcke zu 32, F16-Skala d, 4-Bit-Indizes in eine nichtlineare Tabelle mit 16 Werten</translation>
    </message>
    <message>
        <source>super-blocks of 256, 8 sub-blocks of 32 with 6-bit signed scales, 4-bit indexes into a 16-value non-linear table; 4.25 bits per weight</source>
        <translation>Superblöcke zu 256, 8 Unterblöcke zu 32 mit vorzeichenbehafteten 6-Bit-Skalen, 4-Bit-Indizes in eine nichtlineare Tabelle mit 16 Werten; 4,25 Bit pro Gewicht</translation>
    </message>
    <message>
        <source>super-blocks of 256, F16 scale, ternary codes {−1, 0, 1} packed 5 per byte (base 3); 1.69 bits per weight</source>
        <translation>Superblöcke zu 256, F16-Skala, ternäre Codes {−1, 0, 1}, 5 je Byte gepackt (Basis 3); 1,69 Bit pro Gewicht</translation>
    </message>
    <message>
        <source>super-blocks of 256, F16 scale, ternary codes {−1, 0, 1} in 2 bits; 2.06 bits per weight</source>
        <translation>Superblöcke zu 256, F16-Skala, ternäre Codes {−1, 0, 1} in 2 Bit; 2,06 Bit pro Gewicht</translation>
    </message>
    <message>
        <source>blocks of 32, E8M0 scale, FP4 E2M1 codes (ggml: low nibbles elements 0–15, high 16–31; OCP MX packs element pairs)</source>
        <translation>Blöcke zu 32, E8M0-Skala, FP4-E2M1-Codes (ggml: untere Nibbles Elemente 0–15, obere 16–31; OCP MX packt Elementpaare)</translation>
    </message>
    <message>
        <source>blocks of 64 as 4 sub-blocks of 16, UE4M3 scale each, FP4 E2M1 codes (ggml: no per-tensor FP32 scale; low nibbles elements 0–7, high 8–15 of each 16)</source>
        <translation>Blöcke zu 64 als 4 Unterblöcke zu 16, je eine UE4M3-Skala, FP4-E2M1-Codes (ggml: keine FP32-Skala pro Tensor; untere Nibbles Elemente 0–7, obere 8–15 jedes 16er-Blocks)</translation>
    </message>
    <message>
        <source>blocks of 128, F16 scale, 1-bit codes</source>
        <translation>Blöcke zu 128, F16-Skala, 1-Bit-Codes</translation>
    </message>
</context>
</TS>
