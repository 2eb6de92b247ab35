<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
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
        <source>A .safetensors file, a model.safetensors.index.json or a checkpoint folder. Without it, the built-in demo opens.</source>
        <translation>Eine .safetensors-Datei, eine model.safetensors.index.json oder ein Checkpoint-Ordner. Ohne Angabe öffnet sich die eingebaute Demo.</translation>
    </message>
    <message>
        <source>Give at most one path to open.</source>
        <translation>Höchstens einen Pfad zum Öffnen angeben.</translation>
    </message>
</context>
<context>
    <name>quantscope::MainWindow</name>
    <message>
        <source>&amp;Open…</source>
        <translation>Ö&amp;ffnen…</translation>
    </message>
    <message>
        <source>Open a .safetensors file or a sharded checkpoint&apos;s index</source>
        <translation>Eine .safetensors-Datei oder den Index eines aufgeteilten Checkpoints öffnen</translation>
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
        <source>Filter tensors by name (wildcards: * ?)</source>
        <translation>Tensoren nach Namen filtern (Platzhalter: * ?)</translation>
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
        <translation>Demo</translation>
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
        <source>No Recent Checkpoints</source>
        <translation>Keine zuletzt geöffneten Checkpoints</translation>
    </message>
    <message>
        <source>&amp;Clear List</source>
        <translation>Liste &amp;leeren</translation>
    </message>
    <message>
        <source>still being detected</source>
        <translation>wird noch ermittelt</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Quantscope %1&lt;/h3&gt;&lt;p&gt;A workbench for quantizing the tensors of large language models.&lt;/p&gt;&lt;p&gt;&lt;b&gt;Compute device:&lt;/b&gt; %2&lt;br&gt;&lt;b&gt;GPU backends in this build:&lt;/b&gt; %3&lt;br&gt;&lt;b&gt;Qt:&lt;/b&gt; %4&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Quantscope %1&lt;/h3&gt;&lt;p&gt;Eine Werkbank für die Quantisierung der Tensoren großer Sprachmodelle.&lt;/p&gt;&lt;p&gt;&lt;b&gt;Rechengerät:&lt;/b&gt; %2&lt;br&gt;&lt;b&gt;GPU-Backends in diesem Build:&lt;/b&gt; %3&lt;br&gt;&lt;b&gt;Qt:&lt;/b&gt; %4&lt;/p&gt;</translation>
    </message>
    <message>
        <source>About Quantscope</source>
        <translation>Über Quantscope</translation>
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
        <source>Checkpoints (*.safetensors *.safetensors.index.json);;All files (*)</source>
        <translation>Checkpoints (*.safetensors *.safetensors.index.json);;Alle Dateien (*)</translation>
    </message>
</context>
<context>
    <name>quantscope::TensorListModel</name>
    <message>
        <source>scalar</source>
        <translation>Skalar</translation>
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
        <translation>Name</translation>
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
        <source>Tensor name as stored in the checkpoint</source>
        <translation>Name des Tensors, wie er im Checkpoint steht</translation>
    </message>
    <message>
        <source>Element type as declared in the safetensors header</source>
        <translation>Elementtyp laut safetensors-Header</translation>
    </message>
    <message>
        <source>Dimensions, outermost first</source>
        <translation>Dimensionen, äußerste zuerst</translation>
    </message>
    <message>
        <source>Bytes the tensor occupies in its file</source>
        <translation>Bytes, die der Tensor in seiner Datei belegt</translation>
    </message>
</context>
</TS>
